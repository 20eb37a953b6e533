"""The TUI's parts without a running terminal: bindings, strings, footer,
and the explore entry point of make_app."""

from __future__ import annotations

import dataclasses
import json
import re
from importlib import resources
from pathlib import Path

import pytest

from maskattn_tui.i18n import LANGS, catalog
from maskattn_tui.lesson.f12 import load_f12
from maskattn_tui.tui import make_app
from maskattn_tui.tui.app import MIN_HEIGHT, MIN_WIDTH, MaskattnApp
from maskattn_tui.model.commands import COMMANDS, FIGURE, EXPLORE, MASK, footer_entries, palette_commands
from maskattn_tui.tui.mask_screen import APP_ACTIONS, MaskScreen
from maskattn_tui.tui.screen import FigureScreen

TUI_SRC = Path(__file__).resolve().parent.parent / "src" / "maskattn_tui" / "tui"


def test_every_command_has_an_action_and_strings():
    ids = [c.id for c in COMMANDS]
    assert len(ids) == len(set(ids))
    # A key means one thing in a mode (mask mode reuses ← → + - a on its own screen).
    for mode in (FIGURE, EXPLORE, MASK):
        keys = [k for c in COMMANDS if mode in c.modes for k in c.keys.split(",")]
        assert len(keys) == len(set(keys)), mode
    for command in COMMANDS:
        if command.modes & {FIGURE, EXPLORE}:
            assert callable(getattr(MaskattnApp, f"action_{command.action_name}")), command.id
        if MASK in command.modes:  # mask mode runs the app's own language, help, open and quit
            owner = MaskattnApp if command.action_name in APP_ACTIONS else MaskScreen
            assert callable(getattr(owner, f"action_{command.action_name}")), command.id
        for key in filter(None, (command.help, command.short)):
            for lang in LANGS:
                assert catalog()[key][lang], key


def test_the_figure_bindings_are_the_command_table_on_the_screen():
    """Derived, not listed twice: one binding per command, on the Screen
    (so a modal screen blocks them), none on the App."""
    bound = {b.id: b for b in FigureScreen.BINDINGS}
    assert set(bound) == {c.id for c in COMMANDS if c.modes & {FIGURE, EXPLORE}}
    for command in (c for c in COMMANDS if c.id in bound):
        assert bound[command.id].key == command.keys
        assert bound[command.id].action == f"app.{command.action}"
    assert not any(getattr(b, "id", None) in bound for b in MaskattnApp.BINDINGS)


@pytest.mark.parametrize("mode", [FIGURE, EXPLORE])
def test_footer_entries_per_mode(mode):
    entries = footer_entries(mode)
    slots = [e.slot for e in entries]
    assert len(slots) == len(set(slots))
    assert {"explore", "help"} <= set(slots)
    if mode == EXPLORE:
        assert "step" not in slots and "play" not in slots and "experiments" in slots
    else:
        assert "experiments" not in slots and "save" not in slots


def test_the_palette_obeys_availability():
    """Play is refused in explore mode as Space is; Save only there."""
    figure = {c.id for c in palette_commands(FIGURE)}
    explore = {c.id for c in palette_commands(EXPLORE)}
    assert "play" in figure and "play" not in explore
    assert "save" in explore and "save" not in figure


def test_tui_strings_are_complete_and_used():
    folder = resources.files("maskattn_tui") / "data" / "strings"
    raw = json.loads((folder / "tui.json").read_text("utf-8"))
    explore = json.loads((folder / "tui_explore.json").read_text("utf-8"))
    raw.update(json.loads((folder / "tui_figure.json").read_text("utf-8")))
    for name in ("tui_reading.json", "tui_walkthrough_keys.json"):  # a file of either kind of key
        for key, texts in json.loads((folder / name).read_text("utf-8")).items():
            (explore if key.startswith("tui.x.") else raw)[key] = texts
    for key, texts in raw.items():
        assert key.startswith("tui.") and not key.startswith("tui.x."), key
        assert set(texts) == set(LANGS) and all(texts.values()), key
    for key, texts in explore.items():
        assert key.startswith("tui.x."), key  # explore mode's strings
        assert set(texts) == set(LANGS) and all(texts.values()), key
    raw = {**raw, **explore}
    source = "\n".join(p.read_text("utf-8") for p in TUI_SRC.rglob("*.py"))
    source += (TUI_SRC.parent / "explore" / "session.py").read_text("utf-8")
    source += (TUI_SRC.parent / "model" / "commands.py").read_text("utf-8")
    source += (TUI_SRC.parent / "render" / "figure_lines.py").read_text("utf-8")
    source += (TUI_SRC.parent / "render" / "explain.py").read_text("utf-8")  # the explanation pane's lines
    source += (TUI_SRC.parent / "render" / "mask_stats.py").read_text("utf-8")  # mask mode's block statistics
    used = set(re.findall(r'["\'](tui\.[a-z_.-]+)["\']', source))
    # built from binding ids, language codes, field, experiment and dialog names
    dynamic = {"tui.key.", "tui.lang_name.", "tui.x.key.", "tui.x.field.", "tui.x.experiment.",
               "tui.x.save.", "tui.x.open.", "tui.notice.dwell_", "tui.help.only_", "tui.help.mode_"}
    used = {u for u in used if not u.endswith(".")}
    assert used <= set(raw), used - set(raw)
    unused = {k for k in raw if k not in used and not any(k.startswith(d) for d in dynamic)}
    assert not unused, unused


def test_minimum_size_is_below_80x24():
    assert MIN_WIDTH <= 80 - 10 and MIN_HEIGHT <= 24 - 2


def explore_spec():
    base = load_f12().steps[4]
    return dataclasses.replace(
        base, step=1, kind="explore",
        title={"en": "Explore: a test configuration", "zh": "探索：测试配置"},
    )


async def test_make_app_with_a_spec_shows_that_single_step():
    app = make_app(spec=explore_spec(), lang="en", dwell=10.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        header = app.query_one("#player").render().plain
        assert "Explore: a test configuration" in header and "explore mode" in header
        await pilot.press("right", "end", "left", "home")
        assert app.model.player.step == 1 and app.model.player.steps == 1
        await pilot.press("down")
        assert app.model.player.row == 1
        await pilot.press("L")
        assert "探索" in app.query_one("#player").render().plain


@pytest.mark.parametrize("step", [0, 6, 99])
def test_make_app_clamps_the_step(step):
    app = make_app(step=step)
    assert 1 <= app.model.player.step <= 5


def test_widgets_never_assign_the_state():
    """One source of truth: only the app's actions replace `state` (and
the explore session); a widget may only initialise its own `views`."""
    import ast

    owned = {"state", "session", "explore", "problem"}

    for path in (TUI_SRC / "widgets").glob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                targets = [node.target]
            for target in targets:
                assert not (isinstance(target, ast.Attribute) and target.attr in owned), path.name
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                assert node.func.attr not in {"apply", "apply_explore"}, path.name
                if node.func.attr == "set_reactive":
                    first = node.args[0]
                    assert isinstance(first, ast.Attribute) and first.attr == "views", path.name
