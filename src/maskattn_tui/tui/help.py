"""The help screen, generated from the command table. It scrolls at once
with ↓ / PgDn / End (it has the focus), and wraps its text at 80 columns."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from maskattn_tui.i18n import t
from maskattn_tui.model.commands import COMMANDS, Command
from maskattn_tui.render.palette import ASCII, UNICODE, Palette
from maskattn_tui.render.wrap import Paragraph
from maskattn_tui.tui.widgets.panes import use_ascii_scrollbars


#: The key column's width in both of the help's tables (so they line up).
KEY_WIDTH = 15


def key_text(display: str, keys: str, ascii: bool) -> str:
    """How the key is shown; with `ascii`, arrows are spelled by key name."""
    return keys.split(",")[0] if ascii and not display.isascii() else display


def keys_table(lang: str, palette_key: str, ascii: bool = False, mode: str | None = None,
               commands: tuple[Command, ...] = COMMANDS) -> RenderableType:
    """Every key of the command table. With `mode` (the mode help was
    opened in): that mode's keys first, under a heading, Tab among them in
    explore mode; then the other modes' keys, each marked with its mode (so
    a key with a meaning per mode, such as `a`, is never read for the other).
    `commands`: the table with the user's keys (the settings file)."""
    tr = Palette(glyphs=ASCII if ascii else UNICODE).tr

    def grid() -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(no_wrap=True, style="bold", min_width=KEY_WIDTH)
        table.add_column(ratio=1, overflow="fold")  # a long run of CJK and ASCII wraps, never "…"
        return table

    here = [c for c in commands if mode is not None and mode in c.modes]
    parts: list[RenderableType] = []
    if here:
        parts.append(Text(t("tui.help.here", lang, mode=t(f"tui.help.mode_{mode}", lang)), style="bold underline"))
        table = grid()
        for command in here:
            table.add_row(key_text(command.display, command.keys, ascii), tr(t(command.help, lang)))
        if mode == "explore":
            table.add_row("tab / shift+tab", t("tui.help.tab", lang))
        parts += [table, Text(""), Text(t("tui.help.elsewhere", lang), style="bold underline")]
    table = grid()
    for command in commands:
        if command not in here:
            only = "" if len(command.modes) > 1 else " " + t(f"tui.help.only_{next(iter(command.modes))}", lang)
            table.add_row(key_text(command.display, command.keys, ascii), tr(t(command.help, lang) + only))
    table.add_row(t("tui.help.mouse", lang), t("tui.help.mouse_desc", lang))
    table.add_row(palette_key, t("tui.key.palette", lang))
    parts.append(table)
    return Group(*parts)


class HelpScroll(VerticalScroll, can_focus=True):
    BINDINGS = [
        Binding("down", "scroll_down", show=False), Binding("up", "scroll_up", show=False),
        Binding("pagedown", "page_down", show=False), Binding("pageup", "page_up", show=False),
        Binding("end", "scroll_end", show=False), Binding("home", "scroll_home", show=False),
    ]


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > HelpScroll {
            width: 80;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            border: round $accent;
            border-title-style: bold;
            background: $surface;
            padding: 0 1;
            & > Static { width: 100%; height: auto; }
        }
    }
    HelpScreen.-ascii > HelpScroll { border: ascii $accent; }
    """
    BINDINGS = [
        Binding("escape,question_mark,q", "close", show=False),
    ]

    def __init__(self, lang: str, palette_key: str, ascii: bool = False, mode: str | None = None) -> None:
        super().__init__()
        self.lang = lang
        #: The mode help was opened in (its keys are listed first).
        self.mode = mode
        self.palette_key = palette_key
        self.ascii = ascii

    def on_mount(self) -> None:
        self.set_class(self.ascii, "-ascii")
        scroll = self.query_one(HelpScroll)
        if self.ascii:
            use_ascii_scrollbars(scroll)
        scroll.focus()

    def compose(self) -> ComposeResult:
        lang = self.lang
        tr = Palette(glyphs=ASCII if self.ascii else UNICODE).tr
        with HelpScroll() as scroll:
            scroll.border_title = t("tui.help.title", lang)
            scroll.border_subtitle = tr(t("tui.help.close", lang))
            yield Static(Paragraph(Text(tr(t("tui.help.intro", lang)))))
            yield Static(Paragraph(Text(tr(t("tui.help.scrolling", lang)))))
            yield Static("")
            yield Static(keys_table(lang, self.palette_key, self.ascii, self.mode, getattr(self.app, "commands", COMMANDS)),
                         id="keys-table")
            yield Static("")
            yield Static(Paragraph(Text(tr(t("tui.help.machine", lang)))))
            yield Static("")
            # Paragraph: Chinese breaks between characters, not only at spaces.
            yield Static(Paragraph(Text(tr(t("tui.x.help.explore", lang)))))

    def action_close(self) -> None:
        self.dismiss(None)
