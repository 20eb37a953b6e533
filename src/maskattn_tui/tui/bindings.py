"""The figure's key bindings, declared once.

The footer (KeyBar), the help screen and the command palette are all derived
from FIGURE_BINDINGS; a binding's id names its strings in data/strings/tui.json
(`tui.key.<id>`); FOOTER_GROUPS pairs them with short footer labels."""

from __future__ import annotations

from textual.binding import Binding

from maskattn_tui.i18n import t


def _binding(keys: str, action: str, id: str, key_display: str, show: bool = True) -> Binding:
    # The English description is what Textual's own key panel shows; our
    # footer and help translate it live through the id.
    return Binding(keys, action, t(f"tui.key.{id}", "en"), show=show, key_display=key_display, id=id)


FIGURE_BINDINGS: tuple[Binding, ...] = (
    _binding("left", "prev", "prev", "←"),
    _binding("right", "next", "next", "→"),
    _binding("space", "toggle_play", "play", "space"),
    _binding("plus,equals_sign", "slower", "slower", "+"),
    _binding("minus,underscore", "faster", "faster", "-"),
    _binding("home", "first", "first", "home"),
    _binding("end", "last", "last", "end"),
    _binding("up", "row(-1)", "row_up", "↑"),
    _binding("down", "row(1)", "row_down", "↓"),
    _binding("z", "zoom", "zoom", "z"),
    _binding("L,l", "toggle_language", "lang", "L"),
    _binding("question_mark", "help", "help", "?"),
    _binding("q", "quit", "quit", "q"),
    _binding("shift+left", "scroll_figure(-8)", "scroll_left", "shift+←", show=False),
    _binding("shift+right", "scroll_figure(8)", "scroll_right", "shift+→", show=False),
    _binding("pageup", "scroll_explanation(-1)", "page_up", "pgup", show=False),
    _binding("pagedown", "scroll_explanation(1)", "page_down", "pgdn", show=False),
)

#: Footer entries: binding ids shown together, and the string key of their
#: short label. Every shown binding appears exactly once (a test checks).
FOOTER_GROUPS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("prev", "next"), "tui.short.step"),
    (("play",), "tui.short.play"),
    (("slower", "faster"), "tui.short.dwell"),
    (("row_up", "row_down"), "tui.short.row"),
    (("first", "last"), "tui.short.ends"),
    (("zoom",), "tui.short.zoom"),
    (("lang",), "tui.short.lang"),
    (("help",), "tui.short.help"),
    (("quit",), "tui.short.quit"),
)

#: Which footer entries to keep first when the width is short (indexes into
#: FOOTER_GROUPS, then the palette entry after them); `?` help lists them all.
FOOTER_PRIORITY: tuple[int, ...] = (0, 1, 7, 8, 6, 3, 5, 2, 9, 4)

#: Figure actions: disabled while another screen (help, palette) is on top.
FIGURE_ACTIONS = frozenset(b.action.split("(")[0] for b in FIGURE_BINDINGS) - {"quit", "help"}


def by_id(binding_id: str) -> Binding:
    for binding in FIGURE_BINDINGS:
        if binding.id == binding_id:
            return binding
    raise KeyError(binding_id)


def description(binding: Binding, lang: str) -> str:
    return t(f"tui.key.{binding.id}", lang)


def key_text(binding: Binding, ascii: bool = False) -> str:
    """How the key is shown; with `ascii`, arrows are spelled by key name."""
    shown = binding.key_display or binding.key
    if ascii and not shown.isascii():
        return binding.key.split(",")[0]
    return shown
