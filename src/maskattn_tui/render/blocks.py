"""Lines of segments, and the blocks a figure is made of.

A figure is a column of blocks; every block knows its height and width
without drawing, and draws one line at a time (`window(y, x, width)`: the
line as seen scrolled `x` cells to the right, its first `frozen` cells held
still). The TUI's line-API views show a block's windows; everything else
(`print`, the experiments and lens pane) hands the block to Rich, which
asks it for its lines (`__rich_console__`): one drawing for both."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.segment import Segment
from rich.style import Style

from maskattn_tui.cjk_wrap import break_offsets

Line = list[Segment]

#: No line break between these and what follows (both languages).
_GLUE = (("≤ ", "≤\u00a0"), ("<= ", "<=\u00a0"), ("≥ ", "≥\u00a0"), (">= ", ">=\u00a0"),
         (" = ", "\u00a0=\u00a0"), ("= ", "=\u00a0"))


def glue(text: str) -> str:
    """`text` with no-break spaces where a break would separate a relation
    from its number ("≤ 3", "T = 1")."""
    for plain, glued in _GLUE:
        text = text.replace(plain, glued)
    return text


def merged(segments) -> Line:
    """Neighbouring segments of one style as one (a row of a long table is
    mostly runs of one reason: fewer segments to crop and paint)."""
    out: Line = []
    for seg in segments:
        if out and out[-1].style == seg.style:
            out[-1] = Segment(out[-1].text + seg.text, seg.style)
        else:
            out.append(seg)
    return out


def pad_to(line: Line, width: int) -> Line:
    return Segment.adjust_line_length(line, width)


def text_len(line: Line) -> int:
    return Segment.get_line_length(line)


def window_of(line: Line, frozen: int, x: int, width: int) -> Line:
    """`line` seen scrolled `x` cells right in `width` cells, its first
    `frozen` cells held still."""
    if x <= 0:
        return pad_to(line, width)
    frozen = min(frozen, width)
    head, rest = (list(Segment.divide(line, [frozen, 10**9])) + [[], []])[:2]
    _, shown = (list(Segment.divide(rest, [x, x + width - frozen])) + [[], []])[:2]
    return pad_to(head, frozen) + pad_to(shown, width - frozen)


def wrap_text(text: str, width: int, style: Style | None = None) -> list[Line]:
    """A paragraph's lines (breaks from cjk_wrap: CJK-aware, glued
    relations kept whole)."""
    return wrap_spans([(text, style)], width)


def wrap_spans(spans: Sequence[tuple[str, Style | None]], width: int) -> list[Line]:
    """Text of several styles (`spans`, in order) wrapped as one paragraph
    per "\n", each piece keeping its style."""
    text = "".join(part for part, _ in spans)
    starts, at = [], 0
    for part, _ in spans:
        starts.append(at)
        at += len(part)
    lines: list[Line] = []
    pos = 0
    for para in text.split("\n"):
        offsets = break_offsets(para, max(1, width))
        bounds = [0, *offsets, len(para)]
        for a, b in zip(bounds, bounds[1:]):
            a0, b0 = pos + a, pos + a + len(para[a:b].rstrip())
            line: Line = []
            for (part, style), s0 in zip(spans, starts):
                lo, hi = max(a0, s0), min(b0, s0 + len(part))
                if lo < hi:
                    # The no-break spaces steer the breaks only: a space on screen.
                    line.append(Segment(text[lo:hi].replace("\u00a0", " "), style))
            lines.append(line or [Segment("", spans[0][1] if spans else None)])
        pos += len(para) + 1
    return lines


class Block:
    height = 0
    width = 0
    #: Cells at the left of every line held still when scrolling sideways.
    frozen = 0

    def full(self, y: int) -> Line:
        raise NotImplementedError

    def window(self, y: int, x: int, width: int) -> Line:
        return window_of(self.full(y), self.frozen, x, width)

    def row_lines(self, row: int) -> list[int]:
        """The block's lines that show query row `row` (repainted on a row move)."""
        return []

    def __rich_console__(self, console, options):
        """The block's lines for Rich, as built: a block is laid out for its
        width, and one wider (a table that cannot be narrower) is written
        whole, never cut (print passes crop=False; a pane scrolls it)."""
        newline = Segment.line()
        for y in range(self.height):
            yield from self.full(y)
            yield newline

    def __rich_measure__(self, console, options):
        from rich.measure import Measurement

        return Measurement(min(self.width, options.max_width), min(self.width, options.max_width))


class TextBlock(Block):
    def __init__(self, lines: Sequence[Line], frozen: int = 0) -> None:
        self.lines = list(lines)
        self.height = len(self.lines)
        self.width = max((text_len(l) for l in self.lines), default=0)
        self.frozen = frozen

    def full(self, y: int) -> Line:
        return self.lines[y]


class Column(Block):
    """Blocks one under the other."""

    def __init__(self, blocks: Sequence[Block], fixed: int = 0) -> None:
        self.blocks = [b for b in blocks if b.height]
        self.height = sum(b.height for b in self.blocks)
        self.width = max((b.width for b in self.blocks), default=0)
        #: Lines at the top held still when scrolling down (a table's header).
        self.fixed = fixed
        self.starts: list[int] = []
        y = 0
        for b in self.blocks:
            self.starts.append(y)
            y += b.height

    def locate(self, y: int) -> tuple[Block, int]:
        for b, start in zip(reversed(self.blocks), reversed(self.starts)):
            if y >= start:
                return b, y - start
        raise IndexError(y)

    def full(self, y: int) -> Line:
        block, dy = self.locate(y)
        return block.full(dy)

    def window(self, y: int, x: int, width: int) -> Line:
        if not 0 <= y < self.height:
            return [Segment(" " * width)]
        block, dy = self.locate(y)
        return block.window(dy, x, width)

    def row_lines(self, row: int) -> list[int]:
        return [start + y for b, start in zip(self.blocks, self.starts) for y in b.row_lines(row)]


def flow(entries: Sequence[Line], width: int, gap: int = 2) -> list[Line]:
    """Legend entries left to right, wrapping between entries only."""
    lines: list[Line] = []
    line: Line = []
    for entry in entries:
        if text_len(entry) > width and len(entry) >= 1:
            # An entry wider than the room: its words wrap under themselves,
            # after its swatch (the figure never grows wider than its room).
            if line:
                lines.append(line)
                line = []
            head, words = entry[:-1], entry[-1]
            indent = text_len(head)
            parts = wrap_text(words.text.strip(), max(1, width - indent), words.style)
            lines.append(head + parts[0])
            lines.extend([Segment(" " * indent), *part] for part in parts[1:])
            continue
        need = text_len(entry) + (gap if line else 0)
        if line and text_len(line) + need > width:
            lines.append(line)
            line = []
        if line:
            line.append(Segment(" " * gap))
        line.extend(entry)
    if line:
        lines.append(line)
    return lines


class AtWidth:
    """A block built for the width Rich gives it (`print --width`, a pane):
    `build(width)` makes the block, whose lines are then yielded as is."""

    def __init__(self, build: Callable[[int], Block]) -> None:
        self.build = build

    def __rich_console__(self, console, options):
        yield self.build(max(1, options.max_width))

    def __rich_measure__(self, console, options):
        from rich.measure import Measurement

        width = min(self.build(max(1, options.max_width)).width, options.max_width)
        return Measurement(width, width)
