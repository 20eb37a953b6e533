"""Mask mode's go-to (g): a row and a key of the mask typed in a small
dialog ("16383, 0", "q16383 k0", or a row alone), the selection moved there
(the block holding it in an overview). A bad answer is one notice; the
selection stays."""

from __future__ import annotations

import re

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from maskattn_tui.i18n import t
from maskattn_tui.tui.scenario_dialogs import DIALOG_CSS, Dialog

#: "r", "r, k", "r k", with an optional q / k before each number.
_ANSWER = re.compile(r"^\s*q?\s*(\d{1,12})\s*(?:[,;\s]\s*k?\s*(\d{1,12}))?\s*$", re.IGNORECASE)


def parse_goto(text: str) -> tuple[int, int | None] | None:
    """(row, key or None) from what was typed; None if it is not that."""
    found = _ANSWER.match(text)
    if found is None:
        return None
    return int(found.group(1)), None if found.group(2) is None else int(found.group(2))


class GotoDialog(Dialog[str | None]):
    DEFAULT_CSS = DIALOG_CSS.format(name="GotoDialog")
    BINDINGS = [Binding("escape", "cancel", show=False)]

    def __init__(self, lang: str, rows: int, keys: int, now: tuple[int, int], ascii: bool = False) -> None:
        super().__init__()
        self.lang, self.rows, self.keys, self.now, self.ascii = lang, rows, keys, now, ascii

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical() as box:
            box.border_title = t("tui.m.goto.title", lang)
            box.border_subtitle = t("tui.m.goto.keys", lang)
            yield Static(t("tui.m.goto.prompt", lang, last_row=self.rows - 1, last_key=self.keys - 1))
            yield Input(f"{self.now[0]}, {self.now[1]}", id="where", select_on_focus=True)

    def on_mount(self) -> None:
        self.set_class(self.ascii, "-ascii")
        for box in self.query("#where").results(Input):
            box.focus()
            box.select_all()  # typing replaces the place shown

    @on(Input.Submitted)
    def _ok(self) -> None:
        self.answer(self.query_one("#where", Input).value)

    def action_cancel(self) -> None:
        self.answer(None)


def ask_goto(screen) -> None:
    """g on the mask screen: the dialog, then the move (or one notice)."""
    state, app = screen.state, screen.app
    from maskattn_tui.render.palette import ASCII

    def done(text: str | None) -> None:
        if text is None or not text.strip():
            return
        lang, now = screen.lang, screen.state
        parsed = parse_goto(text)
        if parsed is None:
            app.notify(t("tui.m.goto.bad", lang, text=text.strip()[:40]), severity="warning", markup=False)
            return
        row, key = parsed
        key = now.place[1] if key is None else key
        if row >= now.rows or key >= now.keys:
            app.notify(t("tui.m.goto.outside", lang, last_row=now.rows - 1, last_key=now.keys - 1),
                       severity="warning", markup=False)
            return
        screen.state = now.goto(row, key)

    app.push_screen(GotoDialog(screen.lang, state.rows, state.keys, state.place, ascii=screen.glyphs is ASCII),
                    done)
