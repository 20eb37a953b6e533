"""A small labelled matrix of short glyphs (1/0, 0/−∞, ...), as the API lens
and the experiments show masks: rows q<pos>, columns k<pos>, an optional
mark ("!") after a cell that differs from our table. Too wide for the page,
it is printed in blocks of columns, each with its own header, instead of
being cut. Drawn as lines (render.blocks), like every other table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from maskattn_tui.render.blocks import AtWidth, Block, Column, Line, TextBlock
from maskattn_tui.render.grid_lines import SideBySide

MARK = "!"


def text_lines(text: Text, width: int) -> list[Line]:
    """A title or note wrapped to `width` (a pane narrower than it: never
    cut), its spans' styles kept."""
    line = text_line(text)
    if cell_len(text.plain) <= width:
        return [line]
    from maskattn_tui.render.blocks import wrap_spans

    return wrap_spans([(seg.text, seg.style) for seg in line], width)


def text_line(text: Text) -> Line:
    """A one-line Text as segments, its spans' styles kept."""
    base = Style.parse(text.style) if isinstance(text.style, str) else text.style
    base = base or Style()
    cuts = sorted({0, len(text.plain), *(x for span in text.spans for x in (span.start, span.end))})
    out: Line = []
    for a, b in zip(cuts, cuts[1:]):
        style = base
        for span in text.spans:
            if span.start <= a and b <= span.end:
                style = style + (Style.parse(span.style) if isinstance(span.style, str) else span.style)
        out.append(Segment(text.plain[a:b], style or None))
    return out


def side_by_side(matrices, gap: int = 4) -> AtWidth:
    """Matrices next to each other where they fit whole, else one under the
    other (each then in blocks of columns if it must)."""
    def build(width: int) -> Block:
        blocks = [m.block(10**4) for m in matrices]
        if sum(b.width for b in blocks) + gap * (len(blocks) - 1) <= width:
            joined = blocks[0]
            for b in blocks[1:]:
                joined = SideBySide(joined, b, gap=gap)
            return joined
        return Column([m.block(width) for m in matrices])

    return AtWidth(build)


@dataclass
class SmallMatrix:
    row_labels: Sequence[str]
    col_labels: Sequence[str]
    cells: Sequence[Sequence[str]]
    styles: Sequence[Sequence[Style | None]] | None = None
    marks: Sequence[Sequence[bool]] | None = None
    title: Text | None = None
    label_style: Style | None = None
    notes: Sequence[Text] = field(default_factory=tuple)

    # --- geometry -----------------------------------------------------------

    def _label_width(self) -> int:
        return max((cell_len(x) for x in self.row_labels), default=0)

    def _col_width(self) -> int:
        widest = max((cell_len(c) for row in self.cells for c in row), default=1)
        if self.marks is not None and any(any(r) for r in self.marks):
            widest += cell_len(MARK)
        return max(widest, max((cell_len(c) for c in self.col_labels), default=1))

    def _width(self, columns: int) -> int:
        label = self._label_width()
        return (label + 1 if label else 0) + columns * (self._col_width() + 1) - 1

    def _full_width(self) -> int:
        body = self._width(len(self.col_labels))
        extra = [cell_len(t.plain) for t in (self.title, *self.notes) if t is not None]
        return max([body, *extra])

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        smallest = self._width(1)
        return Measurement(min(smallest, options.max_width), min(self._full_width(), options.max_width))

    # --- drawing --------------------------------------------------------------

    def _cell(self, r: int, c: int, width: int) -> Segment:
        glyph = self.cells[r][c]
        mark = MARK if self.marks is not None and self.marks[r][c] else ""
        style = self.styles[r][c] if self.styles is not None else None
        # cells keep their (styled) padding: even blocks in colour
        return Segment(set_cell_size(glyph + mark, width), style)

    def block(self, width: int) -> TextBlock:
        """The matrix in `width` cells: in blocks of columns, each with its
        own header, where the whole is wider (never cut)."""
        lines: list[Line] = text_lines(self.title, width) if self.title is not None else []
        n = len(self.col_labels)
        label_w = self._label_width()
        col_w = self._col_width()
        room = width - (label_w + 1 if label_w else 0) + 1
        per_block = max(1, room // (col_w + 1))
        label_style = self.label_style or None
        for start in range(0, n, per_block):
            cols = range(start, min(n, start + per_block))
            head: Line = [Segment(" " * (label_w + 1))] if label_w else []
            head.append(Segment(" ".join(set_cell_size(self.col_labels[c], col_w) for c in cols).rstrip(),
                                label_style))
            lines.append(head)
            for r, label in enumerate(self.row_labels):
                line: Line = [Segment(set_cell_size(label, label_w) + " ", label_style)] if label_w else []
                for i, c in enumerate(cols):
                    line.append(self._cell(r, c, col_w))
                    if i < len(cols) - 1:
                        line.append(Segment(" "))
                lines.append(line)
        lines += [line for note in self.notes for line in text_lines(note, width)]
        return TextBlock(lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.block(options.max_width)
