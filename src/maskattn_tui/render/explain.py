"""The explanation: the step's caption, then the five sections."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from maskattn_tui.render.palette import Palette, default_palette
from maskattn_tui.render.wrap import Paragraph
from maskattn_tui.lesson.f12 import Figure
from maskattn_tui.lesson.stepview import StepView


def caption(view: StepView, lang: str, palette: Palette) -> RenderableType:
    return Group(
        Paragraph(Text(palette.tr(view.text("title", lang)), style=palette.style("title"))),
        Paragraph(Text(palette.tr(view.text("caption", lang)))),
    )


def sections(figure: Figure, lang: str, palette: Palette) -> RenderableType:
    parts: list[RenderableType] = []
    for i, section in enumerate(figure.sections, start=1):
        parts.append(Paragraph(Text(f"{i}. {palette.pick(section.title, lang)}", style=palette.style("title"))))
        parts.append(Paragraph(Text(palette.pick(section.body, lang))))
        parts.append(Text(""))
    return Group(*parts)


def explanation(
    figure: Figure, view: StepView, lang: str, palette: Palette | None = None
) -> RenderableType:
    palette = palette or default_palette()
    inputs = Text(palette.t("render.inputs", lang), style=palette.style("title"))
    inputs.append(palette.pick(figure.inputs_note, lang), style=palette.style("dim"))
    return Group(caption(view, lang, palette), Text(""), sections(figure, lang, palette), Paragraph(inputs))
