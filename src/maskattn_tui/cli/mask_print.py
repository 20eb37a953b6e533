"""`maskattn-tui print --mask FILE`: mask mode's screen as text, for a CI
log: the page render.mask_page lays out (the same blocks the mask screen
draws), printed at the console's width. `--row R [--key K]` select in the
named mask, as `--row` does in the app."""

from __future__ import annotations

from rich.console import Console

from maskattn_tui.maskmode.document import MaskDocument
from maskattn_tui.render.mask_page import page
from maskattn_tui.render.palette import Palette


def print_mask(console: Console, doc: MaskDocument, lang: str, palette: Palette, block: int | None = None,
               tokens: tuple[str, ...] | None = None, row: int | None = None, key: int | None = None) -> None:
    for part in page(doc, lang, palette, console.width, block, tokens, row, key):
        console.print(part, crop=False)
