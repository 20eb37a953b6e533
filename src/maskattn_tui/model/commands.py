"""The one command table: every key of the app, once. Bindings, the footer,
the help screen, the command palette and what is available in which mode
are all derived from it (pure: the TUI turns rows into Textual bindings).

A row: id, keys (Textual key names), how the key is shown, the action,
the modes it is available in, its footer slot and priority (lower is kept
first on a narrow screen; None: help only), the string keys of its footer
label, palette label and help text (data/strings/tui*.json, both languages)."""

from __future__ import annotations

from dataclasses import dataclass, replace

FIGURE, EXPLORE, MASK = "figure", "explore", "mask"
BOTH = frozenset({FIGURE, EXPLORE})
ONLY_FIGURE = frozenset({FIGURE})
ONLY_EXPLORE = frozenset({EXPLORE})
#: Mask mode (a user's mask in the app, tui/mask_screen.py) shares a few keys.
ALL = BOTH | {MASK}
ONLY_MASK = frozenset({MASK})


@dataclass(frozen=True)
class Command:
    id: str
    keys: str
    display: str
    action: str
    modes: frozenset[str]
    help: str
    #: Footer: commands with the same slot share one entry ("←/→ step").
    slot: str | None = None
    priority: int | None = None
    short: str | None = None
    palette: str | None = None

    @property
    def action_name(self) -> str:
        return self.action.split("(")[0]


def _c(id, keys, display, action, modes, help, slot=None, priority=None, short=None, palette=None) -> Command:
    return Command(id, keys, display, action, modes, help, slot, priority, short, palette)


COMMANDS: tuple[Command, ...] = (
    _c("prev", "left", "←", "prev", ONLY_FIGURE, "tui.key.prev", "step", 0, "tui.short.step"),
    _c("next", "right", "→", "next", ONLY_FIGURE, "tui.key.next", "step", 0, "tui.short.step"),
    _c("play", "space", "space", "toggle_play", ONLY_FIGURE, "tui.key.play", "play", 3, "tui.short.play",
       "tui.cmd.play"),
    _c("slower", "plus,equals_sign", "+", "slower", ONLY_FIGURE, "tui.key.slower", "dwell", 9, "tui.short.dwell"),
    _c("faster", "minus,underscore", "-", "faster", ONLY_FIGURE, "tui.key.faster", "dwell", 9, "tui.short.dwell"),
    _c("first", "home", "home", "first", ONLY_FIGURE, "tui.key.first", "ends", 10, "tui.short.ends"),
    _c("last", "end", "end", "last", ONLY_FIGURE, "tui.key.last", "ends", 10, "tui.short.ends"),
    _c("row_up", "up", "↑", "row(-1)", ALL, "tui.key.row_up", "row", 4, "tui.short.row"),
    _c("row_down", "down", "↓", "row(1)", ALL, "tui.key.row_down", "row", 4, "tui.short.row"),
    _c("zoom", "z", "z", "zoom", BOTH, "tui.key.zoom", "zoom", 8, "tui.short.zoom", "tui.cmd.zoom"),
    _c("cells", "c", "c", "toggle_cells", BOTH, "tui.key.cells", "cells", 11, "tui.short.cells", "tui.cmd.cells"),
    _c("lang", "L,l", "L", "toggle_language", ALL, "tui.key.lang", "lang", 6, "tui.short.lang", "tui.cmd.lang"),
    _c("explore", "e", "e", "toggle_explore", BOTH, "tui.x.key.explore", "explore", 2, "tui.x.short.explore",
       "tui.x.cmd.explore_on"),
    _c("leak_probe", "1", "1", "toggle_experiment('leak-probe')", ONLY_EXPLORE, "tui.x.key.leak_probe",
       "experiments", 3, "tui.x.short.experiments"),
    _c("offset_bug", "2", "2", "toggle_experiment('offset-bug')", ONLY_EXPLORE, "tui.x.key.offset_bug",
       "experiments", 3, "tui.x.short.experiments"),
    _c("polarity_bug", "3", "3", "toggle_experiment('polarity-bug')", ONLY_EXPLORE, "tui.x.key.polarity_bug",
       "experiments", 3, "tui.x.short.experiments"),
    _c("causal_off", "4", "4", "toggle_experiment('causal-off')", ONLY_EXPLORE, "tui.x.key.causal_off",
       "experiments", 3, "tui.x.short.experiments"),
    _c("window_off_by_one", "5", "5", "toggle_experiment('window-off-by-one')", ONLY_EXPLORE,
       "tui.x.key.window_off_by_one", "experiments", 3, "tui.x.short.experiments"),
    _c("positions_only", "6", "6", "toggle_experiment('positions-only')", ONLY_EXPLORE,
       "tui.x.key.positions_only", "experiments", 3, "tui.x.short.experiments"),
    _c("chunk_history", "7", "7", "toggle_experiment('chunk-history')", ONLY_EXPLORE,
       "tui.x.key.chunk_history", "experiments", 3, "tui.x.short.experiments"),
    _c("lens", "a", "a", "toggle_lens", ONLY_EXPLORE, "tui.x.key.lens", "lens", 5, "tui.x.short.lens"),
    # the walkthrough answers the explore keys with a notice instead of nothing (help only)
    _c("explore_only", "1,2,3,4,5,6,7,a", "1–7, a", "explore_only", ONLY_FIGURE, "tui.key.explore_only"),
    _c("save", "s", "s", "save_scenario", ONLY_EXPLORE, "tui.x.key.save", "save", 7, "tui.x.short.save",
       "tui.x.cmd.save"),
    _c("open", "o", "o", "open_scenario", ALL, "tui.x.key.open", "open", 12, "tui.x.short.open", "tui.x.cmd.open"),
    _c("help", "question_mark", "?", "help", ALL, "tui.key.help", "help", 1, "tui.short.help"),
    _c("quit", "q", "q", "quit", ALL, "tui.key.quit", "quit", 5, "tui.short.quit"),
    _c("scroll_left", "shift+left", "shift+←", "scroll_grid(-8,0)", ALL, "tui.key.scroll_left"),
    _c("scroll_right", "shift+right", "shift+→", "scroll_grid(8,0)", ALL, "tui.key.scroll_right"),
    _c("scroll_up", "shift+up", "shift+↑", "scroll_grid(0,-3)", ALL, "tui.key.scroll_up"),
    _c("scroll_down", "shift+down", "shift+↓", "scroll_grid(0,3)", ALL, "tui.key.scroll_down"),
    _c("bars_up", "left_square_bracket", "[", "scroll_bars(-1)", ALL, "tui.key.bars_up"),
    _c("bars_down", "right_square_bracket", "]", "scroll_bars(1)", ALL, "tui.key.bars_down"),
    _c("page_up", "pageup", "pgup", "scroll_side(-1)", BOTH, "tui.key.page_up"),
    _c("page_down", "pagedown", "pgdn", "scroll_side(1)", BOTH, "tui.key.page_down"),
    _c("leave", "escape", "esc", "leave_controls", ONLY_EXPLORE, "tui.x.key.leave"),
    # mask mode: the selection moves over keys too; blocks; drill-down
    _c("mask_left", "left", "←", "mask_col(-1)", ONLY_MASK, "doctor_tui.key.left", "col", 4, "doctor_tui.short.col"),
    _c("mask_right", "right", "→", "mask_col(1)", ONLY_MASK, "doctor_tui.key.right", "col", 4,
       "doctor_tui.short.col"),
    _c("block_bigger", "plus,equals_sign", "+", "mask_block(1)", ONLY_MASK, "doctor_tui.key.bigger", "block", 3,
       "doctor_tui.short.block"),
    _c("block_smaller", "minus,underscore", "-", "mask_block(-1)", ONLY_MASK, "doctor_tui.key.smaller", "block", 3,
       "doctor_tui.short.block"),
    _c("block_auto", "a", "a", "mask_auto", ONLY_MASK, "doctor_tui.key.auto", "auto", 8, "doctor_tui.short.auto"),
    _c("drill", "enter", "enter", "mask_drill", ONLY_MASK, "doctor_tui.key.drill", "drill", 2,
       "doctor_tui.short.drill"),
    _c("mask_back", "escape,backspace", "esc", "mask_back", ONLY_MASK, "doctor_tui.key.back", "back", 2,
       "doctor_tui.short.back"),
    # mask mode: a big mask is crossed by pages, ends and a go-to, not 16k presses
    _c("mask_first", "home", "home", "mask_edge(0,0)", ONLY_MASK, "tui.m.key.first_row"),
    _c("mask_last", "end", "end", "mask_edge(0,1)", ONLY_MASK, "tui.m.key.last_row"),
    _c("mask_page_up", "pageup", "pgup", "mask_page(-1,0)", ONLY_MASK, "tui.m.key.page_up"),
    _c("mask_page_down", "pagedown", "pgdn", "mask_page(1,0)", ONLY_MASK, "tui.m.key.page_down"),
    _c("mask_key_first", "shift+home", "shift+home", "mask_edge(1,0)", ONLY_MASK, "tui.m.key.first_key"),
    _c("mask_key_last", "shift+end", "shift+end", "mask_edge(1,1)", ONLY_MASK, "tui.m.key.last_key"),
    _c("mask_keys_back", "ctrl+left", "ctrl+←", "mask_page(0,-1)", ONLY_MASK, "tui.m.key.keys_back"),
    _c("mask_keys_on", "ctrl+right", "ctrl+→", "mask_page(0,1)", ONLY_MASK, "tui.m.key.keys_on"),
    _c("mask_goto", "g", "g", "mask_goto", ONLY_MASK, "tui.m.key.goto", "goto", 7, "tui.m.short.goto"),
    _c("mask_explain_up", "left_curly_bracket", "{", "scroll_side(-1)", ONLY_MASK, "tui.m.key.explain_up"),
    _c("mask_explain_down", "right_curly_bracket", "}", "scroll_side(1)", ONLY_MASK, "tui.m.key.explain_down"),
    # mask mode: another (batch, head) slice of a 3-D / 4-D mask (help only, not the footer)
    _c("slice_batch", "b", "b", "mask_slice(0,1)", ONLY_MASK, "doctor_tui.key.batch_next"),
    _c("slice_batch_back", "B", "B", "mask_slice(0,-1)", ONLY_MASK, "doctor_tui.key.batch_back"),
    _c("slice_head", "h", "h", "mask_slice(1,1)", ONLY_MASK, "doctor_tui.key.head_next"),
    _c("slice_head_back", "H", "H", "mask_slice(1,-1)", ONLY_MASK, "doctor_tui.key.head_back"),
    # mask mode on a capture folder (maskmode/capture_doc.py): its calls and distinct masks (help only)
    _c("capture_call", "n", "n", "mask_call(1)", ONLY_MASK, "capture.key.call_next"),
    _c("capture_call_back", "N", "N", "mask_call(-1)", ONLY_MASK, "capture.key.call_back"),
    _c("capture_mask", "m", "m", "mask_distinct(1)", ONLY_MASK, "capture.key.mask_next"),
    _c("capture_mask_back", "M", "M", "mask_distinct(-1)", ONLY_MASK, "capture.key.mask_back"),
)

BY_ID = {c.id: c for c in COMMANDS}
#: An action's modes: those of every command running it (mask mode's { }
#: scroll the side pane as PgUp/PgDn do in the figure and explore).
ACTION_MODES: dict[str, frozenset[str]] = {
    name: frozenset().union(*(c.modes for c in COMMANDS if c.action_name == name))
    for name in {c.action_name for c in COMMANDS}}


def available(command: Command, mode: str) -> bool:
    return mode in command.modes


def action_available(action: str, mode: str) -> bool:
    """Whether an action (as Textual names it, without arguments) may run
    in `mode`; an action not in the table (Textual's own) is not ours to refuse."""
    modes = ACTION_MODES.get(action)
    return modes is None or mode in modes


@dataclass(frozen=True)
class FooterEntry:
    slot: str
    keys: tuple[str, ...]  # shown keys, e.g. ("←", "→")
    short: str  # string key of the label
    priority: int


#: A slot's footer priority in one mode, where it differs from the table's:
#: mask mode keeps L and o at 80 columns (a mask is opened and read in
#: either language there too).
MODE_PRIORITY = {(MASK, "lang"): 3, (MASK, "open"): 3}


def footer_entries(mode: str, commands: tuple[Command, ...] = COMMANDS) -> list[FooterEntry]:
    """The footer's entries for `mode`, in table order (each slot once);
    `commands`: the table with the user's keys (remapped)."""
    entries: dict[str, FooterEntry] = {}
    for c in commands:
        if c.slot is None or not available(c, mode):
            continue
        if (mode, c.slot) in MODE_PRIORITY:
            c = replace(c, priority=MODE_PRIORITY[(mode, c.slot)])
        if c.slot in entries:
            e = entries[c.slot]
            keys = e.keys if c.display in e.keys else (*e.keys, c.display)
            entries[c.slot] = FooterEntry(e.slot, keys, e.short, min(e.priority, c.priority or 0))
        else:
            entries[c.slot] = FooterEntry(c.slot, (c.display,), c.short or "", c.priority or 0)
    # Experiments: "1-7" rather than seven keys.
    if "experiments" in entries:
        e = entries["experiments"]
        entries["experiments"] = FooterEntry(e.slot, (f"{e.keys[0]}-{e.keys[-1]}",), e.short, e.priority)
    return list(entries.values())


def footer_fit(entries: list[FooterEntry], widths: list[int], room: int) -> list[FooterEntry]:
    """The entries kept in `room` cells (by priority), in their usual order;
    `widths` are the entries' widths."""
    order = sorted(range(len(entries)), key=lambda i: (entries[i].priority, i))
    kept: set[int] = set()
    for i in order:
        if widths[i] <= room:
            kept.add(i)
            room -= widths[i]
    return [e for i, e in enumerate(entries) if i in kept]


def palette_commands(mode: str, commands: tuple[Command, ...] = COMMANDS) -> list[Command]:
    """The commands the palette offers in `mode` (it obeys availability)."""
    return [c for c in commands if c.palette and available(c, mode)]


#: Keys the app has besides the table's: Textual's palette and quit, focus moves.
RESERVED_KEYS = frozenset({"ctrl+p", "ctrl+q", "ctrl+c", "tab", "shift+tab"})
#: How a Textual key name is shown (the table's own spellings); others as named.
_SHOWN = {"left": "←", "right": "→", "up": "↑", "down": "↓", "pageup": "pgup", "pagedown": "pgdn",
          "escape": "esc", "question_mark": "?", "plus": "+", "minus": "-", "equals_sign": "=",
          "left_square_bracket": "[", "right_square_bracket": "]", "left_curly_bracket": "{",
          "right_curly_bracket": "}", "underscore": "_"}


class KeymapProblem(Exception):
    """A keymap the table cannot take: `kind` ("unknown_id", "conflict",
    "reserved", "empty"), the binding id and the key concerned, the other id."""

    def __init__(self, kind: str, id: str, key: str = "", other: str = "") -> None:
        super().__init__(kind, id, key, other)
        self.kind, self.id, self.key, self.other = kind, id, key, other


def key_display(key: str) -> str:
    """A Textual key name as the footer and help show it ("ctrl+left" -> "ctrl+←")."""
    head, _, last = key.rpartition("+")
    return (head + "+" if head else "") + _SHOWN.get(last, last)


def remapped(keymap: dict[str, tuple[str, ...]], commands: tuple[Command, ...] = COMMANDS) -> tuple[Command, ...]:
    """The table with the keys of `keymap` (binding id -> Textual key names,
    already normalised: "question_mark", not "?"), or KeymapProblem: an id
    the table has not, a key taken by Textual, or two commands of one mode
    on one key (a key left to a command that was not remapped counts too)."""
    ids = {c.id for c in commands}
    for id, keys in keymap.items():
        if id not in ids:
            raise KeymapProblem("unknown_id", id)
        if not keys:
            raise KeymapProblem("empty", id)
        for key in keys:
            if key in RESERVED_KEYS:
                raise KeymapProblem("reserved", id, key)
    table = tuple(replace(c, keys=",".join(keymap[c.id]), display="/".join(map(key_display, keymap[c.id])))
                  if c.id in keymap else c for c in commands)
    taken: dict[tuple[str, str], str] = {}
    for c in table:
        for key in c.keys.split(","):
            for mode in sorted(c.modes):
                other = taken.setdefault((mode, key), c.id)
                if other != c.id:
                    mine, theirs = (c.id, other) if c.id in keymap else (other, c.id)
                    raise KeymapProblem("conflict", mine, key, theirs)
    return table
