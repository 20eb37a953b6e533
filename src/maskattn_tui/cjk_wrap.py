"""The one line breaker for Chinese and English text (no Rich, no
Textual: --help, the doctor's report and the drawings all use it).

Breaking only at spaces would make a run of Chinese with no spaces one
"word" and ragged lines. Here a line may also break between any two CJK
characters, but never before closing punctuation (，。）etc.) nor after
opening punctuation; a no-break space (render.blocks.glue) holds a
relation to its number."""

from __future__ import annotations

import re
import unicodedata


def cell_width(text: str) -> int:
    """Display columns: 2 for a wide (CJK) character, 0 for a combining
    mark, else 1 (as terminals and Rich count the characters we write)."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


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
        visible = cell_width(token.rstrip())
        if column and column + visible > width:
            offsets.append(match.start())
            column = 0
        if visible > width:  # a single token wider than the line: fold it after a comma if one fits
            # (after "]," first: a matrix breaks between its rows, then inside a row, never in a number)
            start, line_start, commas = match.start(), match.start(), {}
            for i, ch in enumerate(token):
                w = cell_width(ch)
                if column + w > width and column:
                    cut = next((c for c in (commas.get("row"), commas.get("any")) if c is not None and c > line_start),
                               start + i)
                    carried = cell_width(text[cut:start + i])
                    if carried + w > width:  # what follows the comma does not fit either
                        cut, carried = start + i, 0
                    offsets.append(cut)
                    line_start, commas, column = cut, {}, carried
                column += w
                if ch == ",":
                    commas["any"] = start + i + 1
                    if i and token[i - 1] == "]":
                        commas["row"] = start + i + 1
            continue
        column += cell_width(token)
    return offsets


def wrap(text: str, width: int) -> list[str]:
    """`text` (one paragraph) as lines of at most `width` columns, each
    without the spaces it was broken at."""
    bounds = [0, *break_offsets(text, max(1, width)), len(text)]
    return [text[a:b].rstrip() for a, b in zip(bounds, bounds[1:])] or [""]
