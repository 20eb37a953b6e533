"""Text from outside (a file's name, a manifest's command) as a terminal
may show it: control characters (C0, DEL, C1) and the bidi overrides that
reorder or hide what a terminal shows, written as escapes. The ESC of
"\\x1b[2J" would clear the screen, "\\x1b]0;...\\x07" set the window's
title. Only the standard library: the CLI's error line and a capture
folder's reader both use it."""

from __future__ import annotations

import re

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def escaped(text: str) -> str:
    """`text` with every control character written as an escape (\\x1b, \\n, \\u202e)."""
    return CONTROL.sub(_escape, text)
