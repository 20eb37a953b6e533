"""Wrapping help text by display width, for Chinese: a CJK character takes
two columns and a line may break between two of them (there are no spaces to
break at), but not before a closing mark (，。）) nor after an opening one
(（「). English text keeps argparse's own wrapping."""

from __future__ import annotations

import unicodedata

#: Marks that stay with the character before them / after them.
_CLOSING = set("，。、；：！？）」』》】,.;:!?)]}%")
_OPENING = set("（「『《【([{")


def char_width(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def width(text: str) -> int:
    return sum(char_width(c) for c in text)


def has_wide(text: str) -> bool:
    return any(char_width(c) == 2 for c in text)


def _atoms(text: str) -> list[tuple[str, str]]:
    """(separator before, atom): the pieces a line may break between. A
    separator is " " (dropped at a break) or "" (a break between CJK)."""
    atoms: list[tuple[str, str]] = []
    sep, word = "", ""

    def flush() -> None:
        nonlocal sep, word
        if word:
            atoms.append((sep, word))
            sep, word = "", ""

    for char in text:
        if char == " ":
            flush()
            sep = " "
        elif char in _CLOSING and not word and atoms and not sep:
            atoms[-1] = (atoms[-1][0], atoms[-1][1] + char)  # stays with what it closes
        elif char_width(char) == 2 and char not in _CLOSING:
            if word and word[-1] not in _OPENING:
                flush()
            word += char
            if char not in _OPENING:
                flush()  # a break may follow any CJK character
        else:
            word += char
    flush()
    return atoms


def wrap(text: str, columns: int) -> list[str]:
    """`text` as lines of at most `columns` display columns (a single piece
    wider than that gets a line of its own)."""
    lines: list[str] = []
    line, used = "", 0
    for sep, atom in _atoms(text):
        need = width(atom) + (len(sep) if line else 0)
        if line and used + need > columns:
            lines.append(line)
            line, used = atom, width(atom)
        else:
            line += (sep if line else "") + atom
            used += need
    if line:
        lines.append(line)
    return lines or [""]
