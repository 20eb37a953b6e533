"""The figure's key bindings, declared once.

The footer (KeyBar), the help screen and the command palette are all derived
from FIGURE_BINDINGS; a binding's id names its strings in data/strings/tui.json
(`tui.key.<id>`); FOOTER_GROUPS pairs them with short footer labels."""

from __future__ import annotations

from textual.binding import Binding

from maskattn_tui.i18n import t


def string_key(binding_id: str) -> str:
    """The string key of a binding's description: `tui.key.<id>`, or
    `tui.x.key.<name>` for explore mode's `x.<name>` ids."""
    if binding_id.startswith("x."):
        return f"tui.x.key.{binding_id[2:]}"
    return f"tui.key.{binding_id}"


def _binding(keys: str, action: str, id: str, key_display: str, show: bool = True) -> Binding:
    # The English description is what Textual's own key panel shows; our
    # footer and help translate it live through the id.
    return Binding(keys, action, t(string_key(id), "en"), show=show, key_display=key_display, id=id)


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

#: Explore mode's keys (issue 4). `e` works everywhere; the others only in
#: explore mode (the app's check_action). While a control of the side panel
#: has focus it takes the keys it uses (digits, letters, arrows in a text
#: box); Esc gives the keys back to the figure, Tab / shift+Tab move
#: between the controls.
EXPLORE_BINDINGS: tuple[Binding, ...] = (
    _binding("e", "toggle_explore", "x.explore", "e"),
    _binding("s", "save_scenario", "x.save", "s"),
    _binding("o", "open_scenario", "x.open", "o"),
    _binding("1", "toggle_experiment('leak-probe')", "x.leak_probe", "1"),
    _binding("2", "toggle_experiment('offset-bug')", "x.offset_bug", "2"),
    _binding("3", "toggle_experiment('polarity-bug')", "x.polarity_bug", "3"),
    _binding("4", "toggle_experiment('causal-off')", "x.causal_off", "4"),
    _binding("a", "toggle_lens", "x.lens", "a"),
    _binding("escape", "leave_controls", "x.leave", "esc", show=False),
)

#: Explore mode only (the others of EXPLORE_BINDINGS are allowed anywhere).
EXPLORE_ONLY_ACTIONS = frozenset(
    {"save_scenario", "toggle_experiment", "toggle_lens", "leave_controls"}
)
#: F12 player keys that mean nothing with one explored configuration.
PLAYER_ONLY_IDS = frozenset({"prev", "next", "play", "slower", "faster", "first", "last"})

#: Footer entries in explore mode (the figure's groups minus the player's).
EXPLORE_FOOTER_GROUPS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("x.explore",), "tui.x.short.explore"),
    (("x.leak_probe", "x.offset_bug", "x.polarity_bug", "x.causal_off"), "tui.x.short.experiments"),
    (("x.lens",), "tui.x.short.lens"),
    (("x.save",), "tui.x.short.save"),
    (("x.open",), "tui.x.short.open"),
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

def footer_groups(explore: bool) -> tuple[tuple[tuple[tuple[str, ...], str], ...], tuple[int, ...]]:
    """The footer's groups for a mode, and the order in which to keep them
    when the width is short (the last index is the palette entry)."""
    if not explore:
        # The figure's footer, then `e` (the help lists it too).
        groups = (*FOOTER_GROUPS, EXPLORE_FOOTER_GROUPS[0])
        palette = len(FOOTER_GROUPS)  # its index in FOOTER_PRIORITY; now one later
        return groups, (*(palette + 1 if i == palette else i for i in FOOTER_PRIORITY), palette)
    kept = tuple(g for g in FOOTER_GROUPS if not set(g[0]) & PLAYER_ONLY_IDS)
    groups = (*EXPLORE_FOOTER_GROUPS, *kept)
    names = [label for _, label in groups]
    order = ["tui.x.short.explore", "tui.x.short.experiments", "tui.x.short.lens", "tui.x.short.save",
             "tui.short.help", "tui.short.quit", "tui.short.lang", "tui.short.row", "tui.x.short.open",
             "tui.short.zoom"]
    priority = tuple(names.index(label) for label in order if label in names)
    return groups, (*priority, len(groups))


#: Figure actions: disabled while another screen (help, palette) is on top.
FIGURE_ACTIONS = frozenset(b.action.split("(")[0] for b in FIGURE_BINDINGS) - {"quit", "help"}


def by_id(binding_id: str) -> Binding:
    for binding in (*FIGURE_BINDINGS, *EXPLORE_BINDINGS):
        if binding.id == binding_id:
            return binding
    raise KeyError(binding_id)


def description(binding: Binding, lang: str) -> str:
    return t(string_key(binding.id), lang)


def key_text(binding: Binding, ascii: bool = False) -> str:
    """How the key is shown; with `ascii`, arrows are spelled by key name."""
    shown = binding.key_display or binding.key
    if ascii and not shown.isascii():
        return binding.key.split(",")[0]
    return shown
