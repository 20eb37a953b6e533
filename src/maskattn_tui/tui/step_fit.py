"""The figure pane's height at each step of the walkthrough, where the
explanation is under the figure (80x24, 100x30): the tallest step sets the
room the figures are laid out in (tui.layout), and each step's pane is only
as tall as its own figure and weights, so the explanation gets the lines a
shorter step leaves (at 100x30 step 1 kept 8 blank lines in the grid while
its explanation needed PgDn). The wide layout (the explanation beside),
zoom, the stacked weights and explore mode (one view) keep one height.
Arithmetic only (no Textual), so a test can ask the height a step gets."""

from __future__ import annotations

from functools import lru_cache

from maskattn_tui.lesson.stepview import StepView
from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.bar_lines import BAR_FORMS, bar_block
from maskattn_tui.render.figure_lines import frame_size
from maskattn_tui.render.palette import Glyphs, Palette
from maskattn_tui.tui.layout import PANE_CELLS, PANE_LINES, Layout, set_size


def per_step(model: AppModel, plan: Layout) -> bool:
    """Does the figure pane follow the step here?"""
    return not (plan.wide or plan.stacked or model.zoomed or model.exploring)


def _rows(view: StepView) -> range:
    return range(len(view.table.query_positions))


@lru_cache(maxsize=8)
def bars_form(views: tuple[StepView, ...], lang: str, glyphs: Glyphs, width: int, room: int) -> tuple[bool, bool]:
    """The weights' fullest form (closing note, one-line title) in which
    every step's bars, at every row, fit `room` lines (the most the pane
    gets at any step): one form for the walkthrough at a size, so the note
    shows at every step or at none (a form per step showed it at steps 1-3
    of 80x24 and not at 4-5). If none fits, the fullest (the pane scrolls)."""
    palette = Palette(glyphs=glyphs)
    return next((form for form in BAR_FORMS
                 if all(bar_block(views, v, row, lang, palette, width, *form).height <= room
                        for v in views for row in _rows(v))), BAR_FORMS[0])


def step_height(model: AppModel, plan: Layout, glyphs: Glyphs, tokens=None) -> tuple[int, int, tuple[bool, bool]]:
    """Where the pane follows the step (per_step): its height at the
    model's step, its grid's lines (under the title and any horizontal
    scrollbar) and the weights' form. The height is the step's figure in
    the plan's room, or its weights at their fullest (every row), whichever
    is taller, within the plan's height (the tallest step's)."""
    palette = Palette(glyphs=glyphs)
    view = model.view
    fw, fh = frame_size((view,), model.lang, palette, plan.room, model.cells, tokens)
    scrollbar = 1 if fw > plan.room.width else 0  # the horizontal scrollbar's line
    width = max(8, plan.body_width - plan.grid_width - PANE_CELLS)
    form = bars_form(model.views, model.lang, glyphs, width, plan.grid_height - PANE_LINES)
    weights = max(bar_block(model.views, view, row, model.lang, palette, width, *form).height
                  for row in _rows(view))
    height = min(plan.grid_height, max(fh + scrollbar, weights) + PANE_LINES)
    return height, height - PANE_LINES - scrollbar, form


def fit_step(model: AppModel, plan: Layout, grid, bars, figure, glyphs: Glyphs, tokens=None) -> None:
    """Size the figure pane (`figure`, holding `grid` and `bars`) for the
    model's step where it follows the step (step_height), and give the
    weights the form chosen for every step; then the grid is drawn for it."""
    bars.step_form = None
    if per_step(model, plan):
        height, lines, bars.step_form = step_height(model, plan, glyphs, tokens)
        grid.frame = (grid.frame[0], lines)  # its virtual height: no vertical scrolling
        set_size(figure, height=height)
    grid.update_figure(None)
