"""The help screen, generated from the real bindings."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from maskattn_tui.i18n import t
from maskattn_tui.render.palette import ASCII, UNICODE, Palette
from maskattn_tui.tui.bindings import EXPLORE_BINDINGS, FIGURE_BINDINGS, description, key_text
from maskattn_tui.tui.widgets.panes import use_ascii_scrollbars


def keys_table(lang: str, palette_key: str, ascii: bool = False) -> Table:
    tr = Palette(glyphs=ASCII if ascii else UNICODE).tr
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True, style="bold")
    table.add_column()
    for binding in (*FIGURE_BINDINGS, *EXPLORE_BINDINGS):
        table.add_row(key_text(binding, ascii), tr(description(binding, lang)))
    table.add_row(t("tui.help.mouse", lang), t("tui.help.mouse_desc", lang))
    table.add_row(palette_key, t("tui.key.palette", lang))
    return table


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll {
            width: 80;
            max-width: 100%;
            height: auto;
            max-height: 90%;
            border: round $accent;
            border-title-style: bold;
            background: $surface;
            padding: 0 1;
            & > Static { width: 100%; height: auto; }
        }
    }
    HelpScreen.-ascii > VerticalScroll { border: ascii $accent; }
    """
    BINDINGS = [
        Binding("escape,question_mark,q", "close", show=False),
    ]

    def __init__(self, lang: str, palette_key: str, ascii: bool = False) -> None:
        super().__init__()
        self.lang = lang
        self.palette_key = palette_key
        self.ascii = ascii

    def on_mount(self) -> None:
        self.set_class(self.ascii, "-ascii")
        if self.ascii:
            use_ascii_scrollbars(self.query_one(VerticalScroll))

    def compose(self) -> ComposeResult:
        lang = self.lang
        with VerticalScroll() as scroll:
            scroll.border_title = t("tui.help.title", lang)
            scroll.border_subtitle = t("tui.help.close", lang)
            yield Static(Text(t("tui.help.intro", lang)))
            yield Static("")
            yield Static(keys_table(lang, self.palette_key, self.ascii), id="keys-table")
            yield Static("")
            yield Static(Text(t("tui.help.machine", lang)))
            yield Static("")
            yield Static(Text(Palette(glyphs=ASCII if self.ascii else UNICODE).tr(t("tui.x.help.explore", lang))))

    def action_close(self) -> None:
        self.dismiss(None)
