"""The explanation: the step's caption, then the five sections."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from maskattn_tui.render.palette import Palette, default_palette
from maskattn_tui.scenario import Figure
from maskattn_tui.stepview import StepView


def caption(view: StepView, lang: str, palette: Palette) -> Text:
    text = Text(palette.tr(view.text("title", lang)) + "\n", style=palette.style("title"))
    text.append(palette.tr(view.text("caption", lang)))
    return text


def sections(figure: Figure, lang: str, palette: Palette) -> RenderableType:
    parts: list[RenderableType] = []
    for i, section in enumerate(figure.sections, start=1):
        parts.append(Text(f"{i}. {palette.pick(section.title, lang)}", style=palette.style("title")))
        parts.append(Text(palette.pick(section.body, lang) + "\n"))
    return Group(*parts)


def explanation(
    figure: Figure, view: StepView, lang: str, palette: Palette | None = None
) -> RenderableType:
    palette = palette or default_palette()
    inputs = Text(palette.t("render.inputs", lang) + ": ", style=palette.style("title"))
    inputs.append(palette.pick(figure.inputs_note, lang), style=palette.style("dim"))
    return Group(caption(view, lang, palette), Text(""), sections(figure, lang, palette), inputs)
