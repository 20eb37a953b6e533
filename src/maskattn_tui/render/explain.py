"""The explanation as lines (render.blocks): the step's title and caption,
then the figure's sections and its inputs note. The TUI's explanation pane
and `print` draw the same lines."""

from __future__ import annotations

from maskattn_tui.lesson.f12 import Figure
from maskattn_tui.render.blocks import Line, glue, wrap_text
from maskattn_tui.render.palette import Palette


def caption_lines(view, lang: str, palette: Palette, width: int) -> list[Line]:
    return [*wrap_text(glue(palette.tr(view.text("title", lang))), width, palette.style("title")),
            *wrap_text(glue(palette.tr(view.text("caption", lang))), width)]


def section_lines(figure: Figure, lang: str, palette: Palette, width: int, inputs: bool = True) -> list[Line]:
    """The sections; with `inputs`, the F12 figure's inputs note after them
    (an explore configuration's own inputs are on its figure instead)."""
    lines: list[Line] = [[]]
    for i, section in enumerate(figure.sections, start=1):
        lines += wrap_text(f"{i}. {palette.pick(section.title, lang)}", width, palette.style("title"))
        lines += wrap_text(glue(palette.pick(section.body, lang)), width)
        lines.append([])
    if inputs:
        note = palette.t("render.inputs", lang) + palette.pick(figure.inputs_note, lang)
        lines += wrap_text(glue(note), width, palette.style("dim"))
    return lines
