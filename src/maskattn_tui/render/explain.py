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


def about_lines(view, row: int | None, lang: str, palette: Palette, width: int) -> list[Line]:
    """Which row the caption is about (the step's ▶ row), and the bars' ●
    row when it is another one; `row` None: the longer of the two, for the
    pane's height. Only for steps 1-3 (one row's story among three)."""
    focus = view.spec.focus_rows[0]
    positions = view.spec.query_positions
    if len(positions) < 2 or view.spec.kind != "rows":  # steps 1-3: one row's story among several
        return []
    other = (focus + 1) % len(positions) if row is None else row
    mark, dot = "▶", "●"  # the grid's marks (the palette spells them > and * in ASCII)
    if other == focus:
        text = palette.t("tui.explain.about_same", lang, mark=mark, dot=dot, q=f"q{positions[focus]}")
    else:
        text = palette.t("tui.explain.about_other", lang, mark=mark, dot=dot, q=f"q{positions[focus]}",
                         bars=f"q{positions[other]}")
    return wrap_text(palette.tr(text), width, palette.style("dim"))


def captioned(view, row: int, lang: str, palette: Palette, width: int) -> list[Line]:
    """The caption as the explanation pane shows it with query row `row`
    selected: the title, which row it is about, the text."""
    title, *text = caption_lines(view, lang, palette, width)
    return [title, *about_lines(view, row, lang, palette, width), *text]


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
