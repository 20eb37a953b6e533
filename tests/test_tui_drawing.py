"""How the app draws a step: the figure's frame holds still, stepping lays
nothing out again once the frame is big enough, the other steps are drawn
ahead while the app is idle, and the collector paused by the CLI is
resumed once the screen is drawn."""

from __future__ import annotations

import gc

import pytest
from textual.screen import Screen

import maskattn_tui.tui.widgets.bars as bars_widget
import maskattn_tui.tui.widgets.grid as grid_widget
from maskattn_tui.tui import make_app
from maskattn_tui.tui.app import PREWARM_DELAY

SETTLE = PREWARM_DELAY + 0.25


def count_layouts(monkeypatch) -> list[int]:
    """Count the screen's layout passes from now on."""
    passes = [0]
    original = Screen._refresh_layout

    def counted(self, *args, **kwargs):
        passes[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    return passes


@pytest.mark.parametrize("size", [(100, 30), (80, 24), (160, 40)])
async def test_panes_keep_their_width_at_every_step(size):
    """The grid pane is as wide as the widest step from the start, so
    stepping never moves the bars pane sideways."""
    app = make_app(lang="en")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        widths = set()
        for _ in range(5):
            widths.add((app.query_one("#grid-pane").region.width, app.query_one("#bars-pane").region.width))
            await pilot.press("right")
            await pilot.pause()
        assert len(widths) == 1, widths


@pytest.mark.parametrize("size", [(120, 36)])
async def test_the_frame_never_shrinks_so_revisits_lay_nothing_out(monkeypatch, size):
    """Where the tallest step fits its panes. (Where it does not, a step
    that fits again shrinks the widget to its pane: the next test.)"""
    app = make_app(lang="en")
    async with app.run_test(size=size) as pilot:
        await pilot.pause(SETTLE)
        for _ in range(4):  # 1 -> 5: steps 4 and 5 need a taller figure once
            await pilot.press("right")
            await pilot.pause()
        explain = app.query_one("#explain-pane").region
        passes = count_layouts(monkeypatch)
        for key in ["left"] * 4 + ["right"] * 4 + ["down", "up"]:
            await pilot.press(key)
            await pilot.pause()
            assert app.query_one("#explain-pane").region == explain  # nothing below the figure moved
        assert passes[0] == 0


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
async def test_a_short_step_after_a_tall_one_keeps_the_room_not_a_scrollbar(size):
    """Where steps 4-5 overflow the grid pane (it scrolls), going back to a
    step that fits leaves the pane as tall as it was (nothing below moves)
    and without a scrollbar over blank lines."""
    app = make_app(lang="en")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        pane = app.query_one("#grid-pane")
        assert pane.show_vertical_scrollbar  # step 5 does not fit: it scrolls
        explain = app.query_one("#explain-pane").region
        for key in ["home", "right", "right"]:
            await pilot.press(key)
            await pilot.pause()
            assert not pane.show_vertical_scrollbar, app.state.step
            assert pane.max_scroll_y == 0, app.state.step
            assert app.query_one("#explain-pane").region == explain, app.state.step


async def test_steps_of_one_size_repaint_without_a_layout_pass(monkeypatch):
    """Steps 1-3 draw grids of one size: a step repaints, nothing is laid out."""
    app = make_app(lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(SETTLE)
        passes = count_layouts(monkeypatch)
        for key in ["right", "right", "left", "left"]:
            await pilot.press(key)
            await pilot.pause()
        assert app.state.step == 1
        assert passes[0] == 0


async def test_the_bars_fit_their_pane_at_every_step():
    """The reasons wrap and the bars shorten: no sideways scrolling."""
    app = make_app(lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        for step in range(1, 6):
            pane = app.query_one("#bars-pane")
            assert pane.max_scroll_x == 0, step
            assert app.query_one("#bars").region.width <= pane.content_region.width, step
            await pilot.press("right")
            await pilot.pause()


async def test_other_steps_are_drawn_ahead_while_idle(monkeypatch):
    app = make_app(lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(SETTLE)
        built = []
        for module, name in ((grid_widget, "mask_grid"), (bars_widget, "softmax_bars")):
            original = getattr(module, name)
            monkeypatch.setattr(module, name, lambda *a, _o=original, _n=name, **k: built.append(_n) or _o(*a, **k))
        for _ in range(2):  # steps 2 and 3 (same size as step 1)
            await pilot.press("right")
            await pilot.pause()
        assert app.state.step == 3
        assert built == []  # repainted from the drawings made ahead


async def test_the_app_resumes_a_collector_paused_for_the_start():
    was_enabled = gc.isenabled()
    app = make_app(lang="en")
    gc.disable()
    app.gc_paused = True
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert not gc.isenabled()  # not before the screen is drawn and the steps ahead
            await pilot.pause(SETTLE)
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize("step", [1, 4, 5])
async def test_a_narrow_bars_pane_drops_the_reasons_whole_never_in_pieces(step):
    """A blocked key's reason is shown whole or not at all (its F / P letter
    stays); the bars never get shorter than BAR_MIN."""
    from rich.console import Console

    from maskattn_tui.i18n import t
    from maskattn_tui.tui.widgets.bars import BAR_MIN

    app = make_app(step=step, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        bars = app.query_one("#bars")
        fit = bars.render().renderable
        reason = t("render.blocked_reason.future", "en")
        seen = set()
        for width in range(fit.bare, fit.whole + 12):
            lines = Console(width=width).render_lines(fit, pad=False)
            text = "\n".join("".join(s.text for s in line) for line in lines)
            length, with_reasons = fit.layout(width)
            assert length >= BAR_MIN
            assert (reason in text) is with_reasons, width
            assert ("blocked" in text) is with_reasons, width  # no piece of it either
            assert all(sum(s.cell_length for s in line) <= width for line in lines), width
            seen.add(with_reasons)
        assert seen == {False, True}


async def test_a_language_switch_right_after_the_start_still_resumes_the_collector():
    # The switch reschedules the drawing ahead; the start must still end.
    was_enabled = gc.isenabled()
    app = make_app(lang="en")
    gc.disable()
    app.gc_paused = True
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await pilot.press("L")
            await pilot.pause(SETTLE)
            assert gc.isenabled()
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()
