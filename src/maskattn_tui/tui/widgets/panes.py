"""Scrolling panes with a translated border title. They never take focus:
the figure's keys belong to the player, and the panes scroll with the
mouse or the scroll bindings."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from textual.containers import ScrollableContainer
from textual.reactive import reactive
from textual.scrollbar import ScrollBarRender
from textual.widget import Widget

from maskattn_tui.i18n import t
from maskattn_tui.render.palette import UNICODE, Glyphs, Palette
from maskattn_tui.model.step_machine import PlayerState


class AsciiScrollBarRender(ScrollBarRender):
    """Scrollbars without the 1/8-block glyphs at the thumb's ends: the thumb
    is whole reversed cells, which any terminal (and font) can show."""

    VERTICAL_BARS = [" "] * 8
    HORIZONTAL_BARS = [" "] * 8


def use_ascii_scrollbars(widget: Widget) -> None:
    """Draw `widget`'s own scrollbars with ASCII-safe cells only."""
    widget.vertical_scrollbar.renderer = AsciiScrollBarRender
    widget.horizontal_scrollbar.renderer = AsciiScrollBarRender


class Pane(ScrollableContainer, can_focus=False):
    #: Only the border title depends on it (its own reactive repaints the
    #: border when the language changes), so a new step repaints nothing here.
    state: reactive[PlayerState | None] = reactive(None, repaint=False)

    def __init__(self, *children, title_key: str, glyphs: Glyphs = UNICODE, **kwargs) -> None:
        super().__init__(*children, **kwargs)
        self.title_key = title_key
        self.glyphs = glyphs

    @property
    def ascii(self) -> bool:
        return self.glyphs.box == "ASCII"

    def on_mount(self) -> None:
        if self.ascii:
            use_ascii_scrollbars(self)

    def watch_state(self, state: PlayerState | None) -> None:
        if state is not None:
            self._set_title(Palette(glyphs=self.glyphs).tr(t(self.title_key, state.lang)))

    def on_resize(self) -> None:
        if self.ascii and self.state is not None:
            self.watch_state(self.state)

    def _set_title(self, title: str) -> None:
        """In ASCII mode, shorten a long title ourselves with "...", before
        Textual would cut it with "…"."""
        room = self.outer_size.width - 2  # the border's first cell and a blank
        if self.ascii and room > 0 and cell_len(title) > room:
            title = set_cell_size(title, max(0, room - 3)).rstrip() + "..."
        if title != self.border_title:  # setting it repaints the whole pane
            self.border_title = title
