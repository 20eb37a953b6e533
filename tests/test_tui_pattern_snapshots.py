"""Snapshots of each mask pattern in the app (pytest-textual-snapshot), at
80x24: the presets named after the models that use them, the
pattern experiments, the lens with the flex mask_mod, and a refused pattern
value. Every SVG here was looked at as a PNG before it was accepted. Update
with `pytest tests/test_tui_pattern_snapshots.py --snapshot-update` (never
together with -k)."""

from __future__ import annotations

import pytest

from maskattn_tui.explore import ExploreConfig
from maskattn_tui.explore.patterns import PRESETS, preset_changes
from maskattn_tui.tui import make_app

#: Each pattern at 80x24 (two at 120x36 in Chinese); what its grid holds is
#: read as text in test_tui_pattern_panel.py and test_render_one_drawing.py.
SIZES = [(80, 24)]
PATTERNS = [name for name in PRESETS if name != "causal"]


def preset(name: str) -> ExploreConfig:
    return ExploreConfig().replace(**preset_changes(name))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", PATTERNS)
def test_pattern(snap_compare, name, size):
    assert snap_compare(make_app(explore=preset(name), lang="en"), terminal_size=size)


@pytest.mark.parametrize("name", ["draft-tree", "chunked"])
def test_pattern_zh(snap_compare, name):
    assert snap_compare(make_app(explore=preset(name), lang="zh"), terminal_size=(120, 36))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name, config", [
    ("window-off-by-one", preset("sliding-window")),
    ("positions-only", preset("packed")),
    ("chunk-history", ExploreConfig(past=4, new=3)),
], ids=["window-off-by-one", "positions-only", "chunk-history"])
def test_pattern_experiment(snap_compare, name, config, size):
    assert snap_compare(make_app(explore=config, experiments=(name,)), terminal_size=size)


def test_lens_with_flex(snap_compare):
    app = make_app(explore=preset("sliding-window"), lens=True)
    assert snap_compare(app, terminal_size=(120, 36))


def test_preset_picked_in_the_panel(snap_compare):
    """The preset select sends the pseudo-field "preset"; the panel shows it."""

    async def pick(pilot):
        pilot.app.query_one("#x-preset").value = "draft-tree"
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(make_app(explore=ExploreConfig()), run_before=pick, terminal_size=(120, 36))


def test_refused_tree_keeps_the_old_value_selected(snap_compare):
    async def type_tree(pilot):
        box = pilot.app.query_one("#x-tree")
        box.focus()
        await pilot.pause()
        await pilot.press(*"-1,0,7", "enter")
        await pilot.pause()
        pilot.app.clear_notifications()

    assert snap_compare(make_app(explore=preset("draft-tree")), run_before=type_tree, terminal_size=(80, 24))
