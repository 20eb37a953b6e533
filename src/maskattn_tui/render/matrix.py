"""A small labelled matrix of short glyphs (1/0, 0/−∞, ...), as the API lens
and the experiments show masks: rows q<pos>, columns k<pos>, an optional
mark ("!") after a cell that differs from our table. Too wide for the page,
it is printed in blocks of columns, each with its own header, instead of
being cut."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

MARK = "!"


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

    def _cell(self, r: int, c: int, width: int) -> Text:
        glyph = self.cells[r][c]
        mark = MARK if self.marks is not None and self.marks[r][c] else ""
        style = self.styles[r][c] if self.styles is not None else None
        body = Text(glyph + mark, style=style or "")
        body.append(" " * (width - cell_len(glyph + mark)))
        return body

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.title is not None:
            yield self.title
        n = len(self.col_labels)
        label_w = self._label_width()
        col_w = self._col_width()
        room = options.max_width - (label_w + 1 if label_w else 0) + 1
        per_block = max(1, room // (col_w + 1))
        for start in range(0, n, per_block):
            cols = range(start, min(n, start + per_block))
            head = Text(" " * (label_w + 1) if label_w else "")
            for c in cols:
                label = self.col_labels[c]
                head.append(label + " " * (col_w - cell_len(label)), style=self.label_style or "")
                head.append(" ")
            head.rstrip()
            yield head
            for r, label in enumerate(self.row_labels):
                line = Text()
                if label_w:
                    line.append(label + " " * (label_w - cell_len(label)), style=self.label_style or "")
                    line.append(" ")
                for i, c in enumerate(cols):
                    line.append_text(self._cell(r, c, col_w))
                    if i < len(cols) - 1:
                        line.append(" ")
                line.no_wrap = True  # cells keep their (styled) padding: even blocks in colour
                yield line
        yield from self.notes
