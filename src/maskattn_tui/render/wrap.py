"""A Rich paragraph that breaks lines where maskattn_tui.cjk_wrap does
(between CJK characters too, never before closing punctuation), for the
help screen; the breaks themselves are cjk_wrap's."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

from maskattn_tui.cjk_wrap import break_offsets


class Paragraph:
    """A Text that wraps with break_offsets (styles kept)."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        for line in self.text.split("\n", allow_blank=True):
            offsets = break_offsets(line.plain, width)
            for part in line.divide(offsets) if offsets else [line]:
                part.rstrip()
                part.end = "\n"
                part.no_wrap = True
                yield part

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)


def cut_at_word(text: str, room: int, ellipsis: str) -> str:
    """`text` in `room` cells, cut at a word (a space, or between CJK
    characters) with `ellipsis`, never mid-word."""
    from rich.cells import cell_len

    if cell_len(text) <= room:
        return text
    keep = max(0, room - cell_len(ellipsis))
    offsets = break_offsets(text, max(1, keep))
    head = text[: offsets[0]].rstrip() if offsets else text
    while cell_len(head) > keep and head:
        head = head[:-1]
    return (head.rstrip(" ·,:;") + ellipsis) if head else ellipsis[:room]
