"""shift+↓ on a grid that already fits (issue 20): nothing scrolls and no
scrollbar appears; on one taller than its pane it scrolls (so the key is
not simply dead)."""

from __future__ import annotations

import numpy as np
import pytest

from maskattn_tui.maskmode.saved_doc import open_mask
from maskattn_tui.explore import ExploreConfig
from maskattn_tui.tui import make_app


def grid_of(app):
    return app.screen.query_one("#mask-grid") if app.initial_mask is not None else app.query_one("#grid")


async def scrolled(app, size) -> tuple[float, bool, int]:
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        grid = grid_of(app)
        fits = grid.max_scroll_y
        await pilot.press("shift+down", "shift+down")
        await pilot.pause()
        return grid.scroll_y, grid.show_vertical_scrollbar, fits


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("case", ["step1", "step3", "step5", "explore", "mask"])
async def test_a_grid_that_fits_does_not_scroll(tmp_path, size, case):
    if case == "mask":
        np.save(tmp_path / "c6.npy", np.tril(np.ones((6, 6), dtype=bool)))
        app = make_app(mask=open_mask(str(tmp_path / "c6.npy")), block=1)
    elif case == "explore":  # at 80x24 past 3 + new 2 with its inputs is taller than the grid pane
        app = make_app(explore=ExploreConfig(past=1, new=1) if size == (80, 24) else ExploreConfig(past=3, new=2))
    else:
        app = make_app(step=int(case[-1]), dwell=10.0)
    y, bar, room = await scrolled(app, size)
    assert room == 0  # the grid fits
    assert y == 0 and not bar


async def test_a_grid_taller_than_its_pane_scrolls(tmp_path):
    np.save(tmp_path / "c20.npy", np.tril(np.ones((20, 20), dtype=bool)))
    y, bar, room = await scrolled(make_app(mask=open_mask(str(tmp_path / "c20.npy")), block=1), (80, 24))
    assert room > 0 and y == 6 and bar  # twice shift+↓: 3 lines each


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_explanation_gets_every_row_the_tallest_step_leaves(lang, size):
    """80x24 and 100x30, steps 1-5 and back: the grid pane is as tall as its step's
    figure or weights (plus its title), within the tallest step's, and the
    explanation has all the rows below it (issue 35: a short step's blank
    rows go to the explanation)."""
    from maskattn_tui.render.bar_lines import bar_block
    from maskattn_tui.render.figure_lines import build_figure
    from maskattn_tui.render.palette import Palette

    app = make_app(lang=lang, dwell=10.0)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        grid, explain, bars = app.query_one("#grid"), app.query_one("#explain"), app.query_one("#bars")
        room = grid.room
        tallest = max(build_figure(v, 0, lang, Palette(), room).height for v in app.model.views)
        seen = {}
        for key in ["right"] * 4 + ["left"] * 4:
            view = app.model.view
            needs = max(build_figure(view, 0, lang, Palette(), room).height,
                        *(bar_block(app.model.views, view, r, lang, Palette(), bars.content_width()).height
                          for r in range(len(view.table.query_positions))))
            gy, gh, ey, eh = grid.region.y, grid.region.height, explain.region.y, explain.region.height
            assert gh == min(needs, tallest, room.height) + 1, (app.model.player.step, gh, needs)
            assert ey == gy + gh and ey + eh == size[1] - 1  # down to the footer
            assert seen.setdefault(app.model.player.step, (gy, gh, ey, eh)) == (gy, gh, ey, eh)  # back: the same
            await pilot.press(key)
            await pilot.pause()
        assert len(set(seen.values())) > 1  # a shorter step gives its rows to the explanation
