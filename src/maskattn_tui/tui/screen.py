"""The figure's Screen: its key bindings, derived from the command table.
They live on this Screen, not on the App, so a modal screen on top (help,
palette, dialogs) blocks them by itself. Every binding runs an app action
("app.<action>"); the App's check_action asks the command table whether it
is available in the present mode."""

from __future__ import annotations

from textual.binding import Binding

from maskattn_tui.i18n import t
from maskattn_tui.model.commands import BOTH, COMMANDS
from maskattn_tui.tui.bindings import binding
from maskattn_tui.tui.themed import ThemedScreen, themed_css


class FigureScreen(ThemedScreen):
    DEFAULT_CSS = themed_css("FigureScreen")  # the figure's meanings (tui/themed.py)
    # Mask mode's own keys are bound on its screen (tui/mask_screen.py).
    BINDINGS = [binding(c, "app.") for c in COMMANDS if c.id != "quit" and c.modes & BOTH] + [
        # q quits from the figure; the App's own ctrl+q stays as Textual has it.
        Binding("q", "app.quit", t("tui.key.quit", "en"), show=False, id="quit"),
    ]

    def on_screen_resume(self) -> None:
        resumed = getattr(self.app, "figure_resumed", None)
        if resumed is not None:
            resumed()
