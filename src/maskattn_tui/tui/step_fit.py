"""The figure pane's height at each step of the walkthrough, where the
explanation is under the figure (80x24, 100x30): the tallest step sets the
room the figures are laid out in (tui.layout), and each step's pane is only
as tall as its own figure and weights, so the explanation gets the lines a
shorter step leaves (at 100x30 step 1 kept 8 blank lines in the grid while
its explanation needed PgDn). The wide layout (the explanation beside),
zoom, the stacked weights and explore mode (one view) keep one height."""

from __future__ import annotations

from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.bar_lines import bar_block
from maskattn_tui.render.figure_lines import frame_size
from maskattn_tui.render.palette import Glyphs, Palette
from maskattn_tui.tui.layout import PANE_CELLS, PANE_LINES, Layout, set_size


def per_step(model: AppModel, plan: Layout) -> bool:
    """Does the figure pane follow the step here?"""
    return not (plan.wide or plan.stacked or model.zoomed or model.exploring)


def fit_step(model: AppModel, plan: Layout, grid, bars, figure, glyphs: Glyphs, tokens=None) -> None:
    """Size the figure pane (`figure`, holding `grid` and `bars`) for the
    model's step: its figure in the plan's room, or its weights at their
    fullest (every row), whichever is taller, within the plan's height;
    then the grid is drawn for it."""
    alone = per_step(model, plan)
    bars.steps_alone = alone
    if alone:
        _fit(model, plan, grid, figure, glyphs, tokens)
    grid.update_figure(None)


def _fit(model: AppModel, plan: Layout, grid, figure, glyphs: Glyphs, tokens) -> None:
    palette = Palette(glyphs=glyphs)
    view = model.view
    fw, fh = frame_size((view,), model.lang, palette, plan.room, model.cells, tokens)
    scrollbar = 1 if fw > plan.room.width else 0  # the horizontal scrollbar's line
    width = plan.body_width - plan.grid_width - PANE_CELLS
    weights = max(bar_block(model.views, view, row, model.lang, palette, max(8, width)).height
                  for row in range(len(view.table.query_positions)))
    height = min(plan.grid_height, max(fh + scrollbar, weights) + PANE_LINES)
    grid.frame = (grid.frame[0], height - PANE_LINES - scrollbar)  # its virtual height: no vertical scrolling
    set_size(figure, height=height)
