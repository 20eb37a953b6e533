"""Snapshots of explore mode (pytest-textual-snapshot): each experiment at
80x24, the API lens, both languages, a 32 + 32 grid and a
refused value. Every SVG here was looked at as a PNG before it was
accepted. Update with `pytest tests/test_tui_explore_snapshots.py
--snapshot-update` (never together with -k)."""

from __future__ import annotations

import pytest

from maskattn_tui.explore import ExploreConfig
from maskattn_tui.explore.experiments import EXPERIMENTS
from maskattn_tui.tui import make_app
from helpers import drained, send_key

#: The chapter's cache example: 3 cached keys, 2 new queries.
CHAPTER = ExploreConfig(past=3, new=2)

#: Each experiment's pane at 80x24 (the pattern ones: test_tui_pattern_snapshots.py),
#: one in Chinese; the lab pane at other sizes is read as text in test_tui_lab_reading.py.
CASES = [
    pytest.param("en", (80, 24), name, id=f"en-80x24-explore-{name}") for name in EXPERIMENTS[:4]
] + [pytest.param("zh", (80, 24), "leak-probe", id="zh-80x24-explore-leak-probe")]


@pytest.mark.parametrize("lang,size,name", CASES)
def test_experiment(snap_compare, lang, size, name):
    app = make_app(explore=CHAPTER, experiments=(name,), lang=lang)
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize(
    "lang,size",
    [("en", (80, 24)), ("zh", (120, 36))],
    ids=["en-80x24-explore-lens", "zh-120x36-explore-lens"],
)
def test_lens(snap_compare, lang, size):
    app = make_app(explore=ExploreConfig(past=3, new=2, pad=1), lens=True, lang=lang)
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("lang", ["en"])
def test_explore_plain(snap_compare, lang):
    # PAD on the left with a cache, T = 0.5: the grid, bars and explanation.
    config = ExploreConfig(past=2, new=3, pad=1, temperature=0.5, empty_row_policy="zeros")
    assert snap_compare(make_app(explore=config, lang=lang), terminal_size=(80, 24))


def test_explore_wide(snap_compare):
    app = make_app(explore=CHAPTER, experiments=("leak-probe",))
    assert snap_compare(app, terminal_size=(160, 48))


def test_explore_32_plus_32(snap_compare):
    app = make_app(explore=ExploreConfig(past=32, new=32))
    assert snap_compare(app, press=["down", "down"], terminal_size=(80, 24))


def test_explore_refused_value(snap_compare):
    async def type_past(pilot):
        box = pilot.app.query_one("#x-past")
        box.focus()
        await pilot.pause()
        box.value = ""
        await pilot.press("4", "0", "enter")
        await pilot.pause()
        pilot.app.clear_notifications()  # the toast would cover the panel
        await pilot.press("escape")
        await pilot.pause()

    app = make_app(explore=CHAPTER)
    assert snap_compare(app, run_before=type_past, terminal_size=(80, 24))


def test_explore_leak_probe_by_hand(snap_compare):
    """V = 9999 at the future key, typed into the V box, causal rule off."""

    async def probe(pilot):
        box = pilot.app.query_one("#x-assign")
        box.focus()
        await pilot.pause()
        await pilot.press(*"V[future]=9999", "enter", "escape", "4")
        await pilot.pause()

    app = make_app(explore=CHAPTER)
    assert snap_compare(app, run_before=probe, terminal_size=(120, 36))


def test_explore_32_plus_32_wide(snap_compare):
    """PAD on the right, V = 9999 at key 40, the last query selected: the
    grid has scrolled to q63 and the bars sit under it."""
    config = ExploreConfig(past=32, new=32, pad=4, pad_side="right", v_override=((40, 9999.0),))
    async def to_the_last_row(pilot):
        for key in ["end", *["down"] * 31]:
            send_key(pilot.app, key)  # queued as typed (pilot.press idles after each key)
        await drained(pilot)

    app = make_app(explore=config, lang="zh")
    assert snap_compare(app, run_before=to_the_last_row, terminal_size=(160, 48))


def test_explore_zoomed_experiment(snap_compare):
    """z with the offset bug on, at 80x24: the experiment takes the body."""
    app = make_app(explore=CHAPTER, experiments=("offset-bug",))
    assert snap_compare(app, press=["z"], terminal_size=(80, 24))
