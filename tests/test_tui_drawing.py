"""How the app draws, measured by what it does: a step changes only the
figure pane's height (none beside the explanation), a row move repaints only the lines of the two rows (whatever
the table's size), the grid's labels and header stay in view when it
scrolls, and the collector paused by the CLI is resumed once the screen
is drawn."""

from __future__ import annotations

import gc

import pytest

from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.render.grid_lines import TableBlock
from maskattn_tui.i18n import t
from maskattn_tui.render.palette import default_palette
from maskattn_tui.render.table_source import SyntheticSource
from maskattn_tui.tui import make_app

PANES = ("#player", "#condition", "#grid", "#bars", "#explain", "#keys")


def regions(app) -> dict:
    return {p: app.query_one(p).region for p in PANES}


def virtual(app) -> dict:
    return {p: app.query_one(p).virtual_size for p in ("#grid", "#bars", "#explain")}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 48)])
async def test_nothing_moves_or_resizes_when_stepping(size, lang):
    """Beside the explanation (160x48) nothing moves at all; above it (80x24,
    100x30) the figure pane is each step's own height (issue 35: a short
    step's blank rows go to the explanation), the same each time the step
    comes back, and a row move within a step moves nothing."""
    app = make_app(lang=lang, dwell=10.0)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        per_step = {app.model.player.step: (regions(app), virtual(app))}
        fixed = {p: r for p, r in regions(app).items() if p in ("#player", "#condition", "#keys")}
        for key in ["right"] * 4 + ["down", "up", "left", "down"] * 2 + ["home", "end"]:
            step = app.model.player.step
            await pilot.press(key)
            await pilot.pause()
            now = (regions(app), virtual(app))
            if app.model.player.step == step:
                assert now == per_step[step], key  # a row move
            assert per_step.setdefault(app.model.player.step, now) == now, key
            assert {p: r for p, r in now[0].items() if p in fixed} == fixed, key
        if size[0] >= 140:
            assert len({str(v) for v in per_step.values()}) == 1


async def test_the_explanation_returns_to_the_caption():
    """On every step, row, language or configuration change."""
    app = make_app(step=2, dwell=10.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        explain = app.query_one("#explain")
        for key in ("right", "up", "L", "left"):
            await pilot.press("pagedown", "pagedown")
            await pilot.pause()
            assert explain.scroll_y > 0
            await pilot.press(key)
            await pilot.pause()
            assert explain.scroll_y == 0, key




@pytest.mark.parametrize("config", [ExploreConfig(past=3, new=2), ExploreConfig(past=32, new=32)],
                         ids=["3+2", "32+32"])
async def test_a_row_move_repaints_only_the_two_rows(config):
    app = make_app(explore=config)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        grid = app.query_one("#grid")
        await pilot.press("down")  # to the second row; the grid needs no scroll
        await pilot.pause()
        before = grid.lines_drawn
        await pilot.press("up")
        await pilot.pause()
        assert grid.lines_drawn - before == 2  # the row left and the row entered


def test_a_table_line_costs_what_the_screen_shows_not_the_table():
    """A 4,096 x 4,096 table: one line asks for the cells in view only."""
    asked = []

    class Counting(SyntheticSource):
        def cell(self, row, col):
            asked.append((row, col))
            return super().cell(row, col)

    for n in (5, 4096):
        asked.clear()
        block = TableBlock(Counting(n, n), default_palette(), "en", 0, cell_width=2)
        line = block.window(block.header + n // 2, x=2 * (n // 3), width=120)
        assert sum(s.cell_length for s in line) == 120
        assert len(asked) <= 120 // 2 + 1


async def test_the_grid_keeps_its_labels_and_header_when_scrolled():
    app = make_app(explore=ExploreConfig(past=32, new=32))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        grid = app.query_one("#grid")
        assert grid.max_scroll_x > 0 and grid.max_scroll_y > 0
        await pilot.press("shift+right", "shift+right", "shift+down", "shift+down")
        await pilot.pause()
        assert grid.scroll_x > 0 and grid.scroll_y > 0
        header = grid.render_line(0).text
        assert header.lstrip().startswith("queries")
        row = grid.render_line(grid.fixed_lines).text
        assert row.split()[0].startswith("q") or row.split()[1].startswith("q")
        # the first column shown is not k0: the cells scrolled, not the labels
        first_cell = row.split("│")[1]
        assert first_cell.startswith("✓")


async def test_the_collector_is_resumed_after_the_first_screen():
    gc.disable()
    try:
        app = make_app()
        app.gc_paused = True
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.pause()
            assert app.ready and gc.isenabled() and not app.gc_paused
    finally:
        gc.unfreeze()
        gc.enable()


@pytest.mark.parametrize("x", range(0, 24))
def test_a_group_tag_scrolled_sideways_is_whole_or_not_cut_from_the_front(x):
    """Scrolled by a part of a column, the "cache" tag starts after the part
    scrolled out of view (it was drawn from the column's start and lost its
    first letters: "he")."""
    source = SyntheticSource(32, 64)  # 32 cached keys: a "cache" run, then "new"
    block = TableBlock(source, default_palette(), "en", 0, cell_width=6)
    y = block.kinds.index("groups") + len(block.titles)
    text = "".join(s.text for s in block.window(y, x=x, width=80))[block.frozen:]
    tag = t("render.cached", "en")
    assert text.strip().startswith(tag), (x, text)


@pytest.mark.parametrize("kwargs, size, want", [
    (dict(), (80, 24), "A mask is a visibility table "),  # was "A mask is a visibility table, not extra…"
    (dict(lang="zh"), (60, 20), "掩码是一张可见性表 "),
    (dict(explore=ExploreConfig(past=3, new=2)), (60, 20), "past = 3, new = 2 "),  # was "Explore…"
    # zoomed: the notes lose their key hints (the pane rule names z) before the title is cut
    (dict(explore=ExploreConfig(past=3, new=2), zoom=True), (80, 24), "Explore: past = 3, new = 2 "),  # "Explore…"
    (dict(explore=ExploreConfig(past=3, new=2), zoom=True, lang="zh"), (80, 24), "探索：past = 3，new = 2 "),
    (dict(zoom=True), (80, 24), "A mask is a visibility table "),  # was "A mask…"
])
async def test_the_player_bar_shows_a_whole_shorter_title(kwargs, size, want):
    from maskattn_tui.cli.export import screen_text

    zoom = kwargs.pop("zoom", False)
    app = make_app(dwell=10.0, **kwargs)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        if zoom:
            await pilot.press("z")
            await pilot.pause()
        bar = screen_text(app).split("\n")[0]
    assert bar.startswith(" " + want), bar
    assert "…" not in bar.split("  ")[0]


@pytest.mark.parametrize("width, want", [
    (60, "Visibility table · z: enlarge · compact cells · c: full"),
    (34, "Visibility table · z: enlarge"),
    (30, "Visibility table"),  # was "Visibility table · z…"
    (20, "Visibility table"),
])
def test_a_pane_title_leaves_out_its_hints_before_it_is_cut(width, want):
    from maskattn_tui.tui.widgets.panes import pane_title

    assert pane_title(t("tui.panel.grid", "en"), t("tui.panel.grid_compact", "en"), width) == want
    assert pane_title("可见性表 · z 放大", "", 14) == "可见性表"
