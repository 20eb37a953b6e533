"""Scrolling panes with a translated border title. They never take focus:
the figure's keys belong to the player, and the panes scroll with the
mouse or the scroll bindings."""

from __future__ import annotations

from textual.containers import ScrollableContainer
from textual.reactive import reactive

from maskattn_tui.i18n import t
from maskattn_tui.render.palette import UNICODE, Glyphs, Palette
from maskattn_tui.step_machine import PlayerState


class Pane(ScrollableContainer, can_focus=False):
    state: reactive[PlayerState | None] = reactive(None)

    def __init__(self, *children, title_key: str, glyphs: Glyphs = UNICODE, **kwargs) -> None:
        super().__init__(*children, **kwargs)
        self.title_key = title_key
        self.glyphs = glyphs

    def watch_state(self, state: PlayerState | None) -> None:
        if state is not None:
            self.border_title = Palette(glyphs=self.glyphs).tr(t(self.title_key, state.lang))
