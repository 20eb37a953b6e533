"""Small modal dialogs for scenario files: a path to save to or open, and
"replace the existing file?" (No unless the person says Yes). They return
what was chosen; the app does the reading and writing."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, ScreenResultType
from textual.widgets import Button, Input, Static

from maskattn_tui.i18n import t

DIALOG_CSS = """
{name} {{
    align: center middle;
    & > Vertical {{
        width: 64;
        max-width: 100%;
        height: auto;
        border: round $accent;
        border-title-style: bold;
        background: $surface;
        padding: 0 1;
        & > Static {{ width: 100%; height: auto; }}
        & > Input {{ width: 100%; margin: 1 0 0 0; }}
        & > #choices {{ color: $foreground-muted; }}
        & > Horizontal {{ height: auto; width: 100%; align-horizontal: right; margin-top: 1; }}
        & Button {{ margin-left: 1; min-width: 10; }}
    }}
}}
{name}.-ascii > Vertical {{ border: ascii $accent; }}
"""


class Dialog(ModalScreen[ScreenResultType]):
    """Answers once: a second Enter (or y then n) queued before the dialog
    has gone must not dismiss the screen underneath."""

    _answered = False

    def answer(self, result: ScreenResultType) -> None:
        if not self._answered and self.is_current:
            self._answered = True
            self.dismiss(result)


class PathDialog(Dialog[str | None]):
    """Ask for a file path. `mode` is "save" or "open" (titles, button).
    The path shown is selected (typing replaces it), Tab completes it from
    the folder's names, an empty path is a notice (the dialog stays)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="PathDialog")
    BINDINGS = [Binding("escape", "cancel", show=False),
                Binding("tab", "complete", show=False, priority=True)]

    def __init__(self, mode: str, lang: str, default: str, ascii: bool = False) -> None:
        super().__init__()
        self.mode = mode
        self.lang = lang
        self.default = default
        self.ascii = ascii

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical() as box:
            box.border_title = t(f"tui.x.{self.mode}.title", lang)
            box.border_subtitle = t("tui.x.dialog.keys", lang)
            yield Static(t(f"tui.x.{self.mode}.prompt", lang))
            yield Input(self.default, id="path", select_on_focus=True)
            yield Static("", id="choices", markup=False)
            with Horizontal():
                yield Button(t(f"tui.x.{self.mode}.ok", lang), id="ok", variant="primary")
                yield Button(t("tui.x.dialog.cancel", lang), id="cancel")

    def on_mount(self) -> None:
        self.set_class(self.ascii, "-ascii")
        # (Not composed when the app is already quitting: nothing to focus.)
        for box in self.query("#path").results(Input):
            box.focus()
            box.select_all()

    def action_complete(self) -> None:
        """Tab: complete the path in the box (elsewhere, the next control)."""
        from maskattn_tui.tui.path_complete import candidates_text, complete_path

        box = self.query_one("#path", Input)
        if self.focused is not box:
            self.focus_next()
            return
        text, names = complete_path(box.value)
        if text != box.value:
            box.value = text
        box.cursor_position = len(box.value)
        self.query_one("#choices", Static).update(candidates_text(names))

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        path = self.query_one("#path", Input).value.strip()
        if not path:
            self.app.notify(t("tui.x.dialog.empty", self.lang), severity="warning", markup=False)
            return
        self.answer(path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.answer(None)


class ConfirmDialog(Dialog[bool]):
    """Yes / No; Enter on the focused button, Esc or n is No."""

    DEFAULT_CSS = DIALOG_CSS.format(name="ConfirmDialog")
    BINDINGS = [
        Binding("escape,n", "no", show=False),
        Binding("y", "yes", show=False),
    ]

    def __init__(self, lang: str, question: str, ascii: bool = False) -> None:
        super().__init__()
        self.lang = lang
        self.question = question
        self.ascii = ascii

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical() as box:
            box.border_title = t("tui.x.confirm.title", lang)
            # The question holds a file name: shown as it is, never read as markup.
            yield Static(self.question, markup=False)
            with Horizontal():
                yield Button(t("tui.x.confirm.yes", lang), id="yes", variant="warning")
                yield Button(t("tui.x.confirm.no", lang), id="no", variant="primary")

    def on_mount(self) -> None:
        self.set_class(self.ascii, "-ascii")
        for button in self.query("#no").results(Button):
            button.focus()  # the safe answer by default

    @on(Button.Pressed, "#yes")
    def action_yes(self) -> None:
        self.answer(True)

    @on(Button.Pressed, "#no")
    def action_no(self) -> None:
        self.answer(False)
