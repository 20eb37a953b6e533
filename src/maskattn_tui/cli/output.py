"""Where the batch commands write: streams that cannot fail on a character,
lines without trailing blanks, a closed pipe that is not an error, and error
lines that stay one readable line whatever the user typed.

No Rich or Textual here: --help uses it too."""

from __future__ import annotations

import os
import re
import sys

from maskattn_tui.i18n import t
from maskattn_tui.printable import escaped

#: An echoed value (a path, a number, an option's value) longer than this is
#: cut in the middle: a 5,000-digit value must not make a 5 KB error line,
#: while a real file's path still fits whole.
MAX_VALUE = 200
#: A whole error line longer than this keeps its start (what is wrong) and
#: its end, cut in the middle (a list of 3,000 values echoed back).
MAX_LINE = 300
_LONG = re.compile(r"\S{%d,}" % (MAX_VALUE + 1))
#: Blanks Rich pads a line with (unstyled: after the last style code).
_TRAILING = re.compile(r"[ \t]+$", re.MULTILINE)


def clean_line(text: str, lang: str = "en") -> str:
    """One line as it is safe to show: control characters escaped, over-long
    runs of non-blanks (echoed values) cut in the middle."""
    keep = MAX_VALUE // 2 - 4

    def cut(match: re.Match[str]) -> str:
        word = match[0]
        return word[:keep] + t("cli.cut", lang, count=len(word) - 2 * keep) + word[-keep:]

    line = _LONG.sub(cut, escaped(text))
    if len(line) > MAX_LINE:
        tail = MAX_LINE // 4
        line = line[:MAX_LINE - tail] + t("cli.cut", lang, count=len(line) - MAX_LINE) + line[-tail:]
    return line


def can_encode(stream, sample: str = "✓中") -> bool:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        sample.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def never_fail_on_characters() -> None:
    """stdout and stderr write what their encoding cannot hold as escapes
    (PYTHONIOENCODING=ascii, a C locale) instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        if not can_encode(stream) and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream
                pass


def reader_left() -> int:
    """stdout's reader has gone (`| head`): not an error. Later writes (and
    the flush at exit) go to /dev/null, so Python reports nothing; exit 0."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    return 0


class PrintFile:
    """A file for Rich's Console that writes whole lines to `stream` without
    the blanks Rich pads them with; with `ascii`, Rich's own "…" (a cut
    cell) becomes "~", so that every byte is ASCII."""

    def __init__(self, stream, ascii: bool = False) -> None:
        self.stream = stream
        self.ascii = ascii
        self._pending = ""

    def write(self, text: str) -> int:
        data = self._pending + text
        head, sep, self._pending = data.rpartition("\n")
        if sep:
            self.stream.write(self._clean(head + sep))
        return len(text)

    def _clean(self, text: str) -> str:
        text = _TRAILING.sub("", text)
        return text.replace("…", "~") if self.ascii else text

    def flush(self) -> None:
        if self._pending:
            self.stream.write(self._clean(self._pending))
            self._pending = ""
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"


def error_line(text: str, lang: str) -> None:
    """One line on stderr, its characters made safe for the terminal (clean_line)."""
    sys.stderr.write(clean_line(text, lang) + "\n")


def doctor_json_error(arguments: list[str], code: str, message: str) -> None:
    """`doctor --json`: the error as a JSON object on stdout too (docs/json.md)."""
    from maskattn_tui.doctor import json_error

    if json_error.wanted(arguments):
        json_error.write(code, message)
