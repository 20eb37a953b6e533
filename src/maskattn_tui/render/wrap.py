"""Paragraphs that wrap Chinese text well.

Rich breaks lines only at spaces, so a run of Chinese with no spaces is one
"word" and lines come out ragged. Here a line may also break between any two
CJK characters, but never before closing punctuation (，。）etc.) nor after
opening punctuation."""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

_CJK = r"\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
#: Every character of _CJK is at or above this one.
_CJK_LOWEST = "\u2e80"
#: One token: a CJK character (with any closing punctuation glued after it),
#: or a run of other characters up to a space or tab (a no-break space does
#: not end it), each with its trailing spaces.
_OPEN = "“‘（《「『【("
_CLOSE = "，。、；：！？）》」』】”’,.;:!?)"
_TOKEN_PATTERN = rf"(?:[{_OPEN}]*(?:[{_CJK}]|[^ \t{_CJK}]+)[{_CLOSE}]*)[ \t]*|[ \t]+"
#: The same pattern for a text with no CJK character in it, where [CJK] can
#: match nothing and [^ \t CJK] is [^ \t]. Compiling _TOKEN_PATTERN takes
#: ~2 ms (re marks each of the ~30,000 code points of its ranges), so
#: it is compiled only when a text needs it: `print --lang en` never does.
_PLAIN_TOKEN = re.compile(rf"(?:[{_OPEN}]*[^ \t]+[{_CLOSE}]*)[ \t]*|[ \t]+")
_cjk_token: re.Pattern[str] | None = None


def _token_pattern(text: str) -> re.Pattern[str]:
    """The token pattern for `text`: the plain one when it has no CJK."""
    global _cjk_token
    if not text or max(text) < _CJK_LOWEST:
        return _PLAIN_TOKEN
    if _cjk_token is None:
        _cjk_token = re.compile(_TOKEN_PATTERN)
    return _cjk_token


def break_offsets(text: str, width: int) -> list[int]:
    """Character offsets at which to break `text` (one paragraph line)."""
    offsets: list[int] = []
    column = 0
    for match in _token_pattern(text).finditer(text):
        token = match.group(0)
        visible = cell_len(token.rstrip())
        if column and column + visible > width:
            offsets.append(match.start())
            column = 0
        if visible > width:  # a single token wider than the line: fold it
            start = match.start()
            for i, ch in enumerate(token):
                w = cell_len(ch)
                if column + w > width and column:
                    offsets.append(start + i)
                    column = 0
                column += w
            continue
        column += cell_len(token)
    return offsets


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
