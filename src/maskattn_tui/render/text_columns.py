"""A table of short texts in aligned columns, as lines (render.blocks): a
title, the header, a rule, the rows (an empty line between groups of
rows). The experiments' outputs and mask mode's statistics use it; a
visibility table is a render.grid_lines.TableBlock instead."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style

from maskattn_tui.cjk_wrap import wrap
from maskattn_tui.render.blocks import Line, TextBlock
from maskattn_tui.render.palette import Palette

#: A cell: its text, or its text and style.
Cell = str | tuple[str, Style | None]
GAP = 2


def _parts(cell: Cell) -> tuple[str, Style | None]:
    return (cell, None) if isinstance(cell, str) else cell


def columns_block(headers: Sequence[str], rows: Sequence[Sequence[Cell]], palette: Palette,
                  title: str | None = None, right: Sequence[int] = (), groups: Sequence[int] = (),
                  width: int | None = None) -> TextBlock:
    """`rows` under `headers`; columns whose index is in `right` aligned
    right (numbers); an empty line before each row index in `groups`. With
    `width`, a last column that does not fit wraps within its own column
    (its words on the following lines) if 12 cells are left for it; the
    other columns are never cut."""
    widths = [cell_len(h) for h in headers]
    for row in rows:
        for c, cell in enumerate(row):
            widths[c] = max(widths[c], cell_len(_parts(cell)[0]))
    last = len(widths) - 1
    before = sum(widths[:last]) + GAP * last
    if width is not None and before + widths[last] > width and width - before >= 12:
        widths[last] = width - before

    def line(cells: Sequence[Cell], style: Style | None = None) -> list[Line]:
        out: Line = []
        extra: list[Line] = []
        for c, cell in enumerate(cells):
            text, own = _parts(cell)
            if c:
                out.append(Segment(" " * GAP))
            if c == last and cell_len(text) > widths[c]:
                first, *more = wrap(text, widths[c])
                out.append(Segment(first, own or style))
                extra = [[Segment(" " * before), Segment(part, own or style)] for part in more]
                continue
            pad = " " * (widths[c] - cell_len(text))
            out.append(Segment(pad + text if c in right else set_cell_size(text, widths[c]), own or style))
        return [out, *extra]

    lines: list[Line] = [[Segment(title, palette.style("title"))]] if title else []
    lines += line(headers, palette.style("header"))
    rule = "-" if palette.ascii else "─"
    lines.append([Segment(rule * (sum(widths) + GAP * (len(widths) - 1)), palette.style("dim"))])
    for r, row in enumerate(rows):
        if r in groups and r:
            lines.append([])
        lines += line(row)
    return TextBlock(lines)
