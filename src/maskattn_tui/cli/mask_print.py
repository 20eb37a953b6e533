"""`maskattn-tui print --mask FILE`: mask mode's screen as text, for a CI
log: the page render.mask_page lays out (the same blocks the mask screen
draws), printed at the console's width."""

from __future__ import annotations

from rich.console import Console

from maskattn_tui.render.mask_page import page
from maskattn_tui.render.palette import Palette


def print_mask(console: Console, doc, lang: str, palette: Palette, block: int | None = None,
               tokens: tuple[str, ...] | None = None) -> None:
    for part in page(doc, lang, palette, console.width, block, tokens):
        console.print(part, crop=False)
