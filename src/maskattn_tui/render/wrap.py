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
