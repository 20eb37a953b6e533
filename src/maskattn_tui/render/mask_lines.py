"""Mask mode drawn as lines of segments (render.grid_lines' blocks): the
user's table and the rule's side by side, scrolled together so that the
same keys are always beside each other; the bars of a row; the
explanation's sections. Rich only (no numpy: the sources hand over plain
values); the TUI's mask screen shows these through line-API views.

A row move changes only `row` / `col` of the two tables (the blocks are
kept, never rebuilt), and a line draws only the columns in view."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style

from maskattn_tui.render.bar_lines import bar_segments
from maskattn_tui.render.grid_lines import Block, Line, TableBlock, TextBlock, glue, pad_to, wrap_text
from maskattn_tui.render.palette import Palette

#: Cells between the two tables.
GAP = 2
#: The compact cell: a glyph and the "!" mark.
COMPACT = 2


class MaskTableBlock(TableBlock):
    """A TableBlock whose selected cell (row, col) is drawn reversed."""

    mark_alone = False  # your mask and the rule both mark a cell: each keeps its glyph

    def __init__(self, *args, col: int = 0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.col = col

    def _cell(self, r: int, c: int) -> list[Segment]:
        if r != self.row or c != self.col:
            return super()._cell(r, c)
        src = self.source
        swatch, *rest = self._draw_cell(src.cell(r, c), src.differs(r, c), True)
        return [Segment(swatch.text, (swatch.style or Style()) + SELECTED), *rest]


#: The selected cell: reversed (its glyph and "!" stay; the explanation says which it is).
SELECTED = Style(reverse=True, bold=True)


def cell_width(source, palette: Palette, lang: str, room: int, frozen: int) -> int:
    """Full cells if the table fits `room`, else the compact 2 (or 1 if
    only that fits)."""
    full = TableBlock.full_width(source, palette, lang)
    for width in (full, COMPACT, 1):
        if frozen + source.cols * width <= room:
            return width
    return COMPACT


class Twin(Block):
    """Two tables of the same rows and keys, each in half of `view` cells
    (or its own width when both fit), both scrolled by the same x."""

    def __init__(self, left: TableBlock, right: TableBlock, view: int) -> None:
        self.left, self.right, self.view = left, right, view
        self.height = max(left.height, right.height)
        self.width = left.width + GAP + right.width
        self.frozen = left.frozen
        self.header = left.header

    def half(self, width: int) -> int:
        if self.width <= width:
            return self.left.width
        return max(self.left.frozen + 1, (width - GAP) // 2)

    def scroll_width(self, width: int) -> int:
        """The virtual width that lets x reach the tables' last key."""
        return width + max(0, self.left.width - self.half(width))

    def window(self, y: int, x: int, width: int) -> Line:
        """Line `y` scrolled by `x`, laid out for the view (padded to `width`)."""
        view = min(width, self.view)
        half = self.half(view)
        left = self.left.window(y, x, half) if y < self.left.height else [Segment(" " * half)]
        # The right table no wider than the left: both show the same keys (an odd
        # room's extra cell would show one key more on the right only).
        rest = min(half, max(0, view - half - GAP)) if self.width > view else max(0, view - half - GAP)
        right = self.right.window(y, x, rest) if y < self.right.height else [Segment(" " * rest)]
        return pad_to([*left, Segment(" " * GAP), *right], width)

    def full(self, y: int) -> Line:
        return self.window(y, 0, self.width)

    def row_lines(self, row: int) -> list[int]:
        return self.left.row_lines(row)

    def select(self, row: int, col: int) -> None:
        for table in (self.left, self.right):
            table.row, table.col = row, col

    def reveal_x(self, x: int, width: int, col: int) -> int:
        """The scroll x that shows column `col` (x kept if it does)."""
        room = self.half(width) - self.left.frozen
        cw = self.left.cw
        if col * cw < x:
            return col * cw
        if (col + 1) * cw > x + room:
            return (col + 1) * cw - room
        return x


def bar_lines(caption: Sequence[str], keys: Sequence[tuple[int, str, float]], scale: float, palette: Palette,
              lang: str, width: int) -> TextBlock:
    """The caption, then one line per key: label, the cell's glyph, the bar
    (`scale` = the full bar) and the weight, or "hidden" for a hidden key."""
    lines: list[Line] = []
    for text in caption:
        lines += wrap_text(glue(palette.tr(text)), width, palette.style("dim"))
    kw = max((len(f"k{k}") for k, _, _ in keys), default=2)
    glyph_w = 2
    bar_w = max(4, min(40, width - kw - glyph_w - 10))
    hidden = palette.t("doctor_tui.bars.hidden", lang)
    for key, reason, weight in keys:
        glyph = palette.cell_glyph(reason)
        head = [Segment(f"k{key}".ljust(kw) + " "), Segment(set_cell_size(glyph, glyph_w), palette.style(reason)),
                Segment(" ")]
        if reason == "allowed":
            bar = bar_segments(weight / scale if scale > 0 else 0.0, bar_w, palette)
            lines.append([*head, *bar, Segment(f" {weight:.4f}", palette.style("number"))])
        else:
            lines.append([*head, Segment(palette.glyphs.bar_empty * bar_w, palette.style("bar.empty")),
                          Segment(" " + hidden, palette.style("dim"))])
    return TextBlock(lines)


def section_lines(sections, palette: Palette, width: int) -> list[Line]:
    """The explanation's sections (maskmode.text.Section): a bold title,
    then the paragraphs, each in its meaning's style."""
    lines: list[Line] = []
    for section in sections:
        lines += wrap_text(palette.tr(section.title), width, palette.style("title"))
        for meaning, text in section.paragraphs:
            lines += wrap_text(glue(palette.tr(text)), width, palette.style(meaning) if meaning else None)
        lines.append([])
    return lines

