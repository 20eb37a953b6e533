"""Wrapping help text by display width, for Chinese: a CJK character takes
two columns and a line may break between two of them (there are no spaces to
break at), but not before a closing mark (，。）) nor after an opening one
(（「). English text keeps argparse's own wrapping. The breaks are
maskattn_tui.cjk_wrap's, the one line breaker of the app."""

from __future__ import annotations

from maskattn_tui.cjk_wrap import cell_width, wrap  # noqa: F401 - wrap: parser.py's help lines


def width(text: str) -> int:
    return cell_width(text)


def has_wide(text: str) -> bool:
    return cell_width(text) != len(text)
