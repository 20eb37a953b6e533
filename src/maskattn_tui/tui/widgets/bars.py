"""The softmax bars: a line-API view of render.bar_lines for the selected
row, every bar on the walkthrough's one scale (1.0 = the full bar)."""

from __future__ import annotations

from textual.geometry import Size

from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.bar_lines import BAR_FORMS, bar_block
from maskattn_tui.render.grid_lines import Block
from maskattn_tui.tui.widgets.base import LinesView


class BarsView(LinesView):
    #: The frame's key and its height so far (see frame_size).
    _held: tuple[object, int] | None = None

    #: (views, language, width, height) -> (closing note drawn, one-line title)
    _form_for: tuple[object, tuple[bool, bool]] | None = None

    #: Where the pane's height follows the step (tui.step_fit): the form it
    #: chose for every step at this size, and the frame is the step's own,
    #: not the tallest step's. None: one height for the walkthrough, the
    #: form chosen here.
    step_form: tuple[bool, bool] | None = None

    def _steps(self, model: AppModel) -> tuple:
        return (model.view,) if self.step_form is not None else model.views

    def figure_key(self, model: AppModel) -> object:
        # The row too: its bars are all new lines (a whole repaint of this pane).
        return (model.views, model.player.step, model.player.row, model.lang, self.content_width(), self.size.height)

    def build(self, model: AppModel) -> Block:
        note, short = self._form(model)
        return bar_block(model.views, model.view, model.player.row, model.lang, self.palette(), self.content_width(),
                         note=note, short=short)

    def _tallest(self, model: AppModel, note: bool, short: bool = False) -> int:
        palette, width = self.palette(), self.content_width()
        return max(bar_block(model.views, v, v.spec.focus_rows[0], model.lang, palette, width, note, short).height
                   for v in self._steps(model))

    def _form(self, model: AppModel) -> tuple[bool, bool]:
        """The fullest form that lets every step's bars fit the pane, the
        same at every step: the closing note only where it fits, the
        one-line title where only that makes them fit; so no step scrolls
        or cuts its last line. If none fits, the fullest (the pane scrolls).
        Where the pane follows the step, tui.step_fit chose it (bars_form)."""
        if self.step_form is not None:
            return self.step_form
        height = self.scrollable_content_region.height if self.size.height else 0
        key = (model.views, model.lang, self.content_width(), height)
        if self._form_for is None or self._form_for[0] != key:
            form = BAR_FORMS[0]
            if height:
                form = next((f for f in BAR_FORMS if self._tallest(model, *f) <= height), form)
            self._form_for = (key, form)
        return self._form_for[1]

    def frame_size(self, model: AppModel) -> Size:
        # Never shrinks within a frame (views, language, width): no layout pass when stepping.
        assert self.figure is not None
        key = (self._steps(model), model.views, model.lang, self.content_width(), self._form(model))
        held = self._held
        height = self.figure.height
        if held is not None and held[0] == key:
            height = max(height, held[1])
        else:  # a new frame: as tall as the tallest step's bars at its focus row
            height = max(height, self._tallest(model, *self._form(model)))
        self._held = (key, height)
        return Size(self.content_width(), height)
