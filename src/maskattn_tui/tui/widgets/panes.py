"""Pane chrome: titles cut at a word for the pane's width, and ASCII
scrollbars (the panes themselves are line-API views, widgets/base.py)."""

from __future__ import annotations

from textual.scrollbar import ScrollBarRender
from textual.widget import Widget

from maskattn_tui.render.palette import UNICODE, Glyphs, Palette


class AsciiScrollBarRender(ScrollBarRender):
    """Scrollbars without the 1/8-block glyphs at the thumb's ends."""

    VERTICAL_BARS = [" "] * 8
    HORIZONTAL_BARS = [" "] * 8


def use_ascii_scrollbars(widget: Widget) -> None:
    widget.vertical_scrollbar.renderer = AsciiScrollBarRender
    widget.horizontal_scrollbar.renderer = AsciiScrollBarRender


def pane_title(title: str, extra: str, width: int, glyphs: Glyphs = UNICODE) -> str:
    """`title` (and `extra` after it, if it fits) in a border `width` wide;
    where it does not fit, its " · " parts from the end are left out (the
    key hint goes first: "Visibility table", not "Visibility table · z…"),
    and only a first part too long alone is cut at a word with an ellipsis."""
    from rich.cells import cell_len

    from maskattn_tui.render.wrap import cut_at_word

    tr = Palette(glyphs=glyphs).tr
    room = max(4, width - 4)  # the border's corners and a blank either side
    parts = (f"{title} · {extra}" if extra else title).split(" · ")
    for n in range(len(parts), 0, -1):
        shown = tr(" · ".join(parts[:n]))
        if cell_len(shown) <= room:
            return shown
    return cut_at_word(tr(parts[0]), room, tr("…"))
