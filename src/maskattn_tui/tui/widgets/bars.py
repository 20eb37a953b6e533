"""The softmax bars: a line-API view of render.bar_lines for the selected
row, every bar on the walkthrough's one scale (1.0 = the full bar)."""

from __future__ import annotations

from textual.geometry import Size

from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.bar_lines import bar_block
from maskattn_tui.render.grid_lines import Block
from maskattn_tui.tui.widgets.base import LinesView


class BarsView(LinesView):
    #: The frame's key and its height so far (see frame_size).
    _held: tuple[object, int] | None = None

    #: (views, language, width, height) -> whether the closing note is drawn
    _note_for: tuple[object, bool] | None = None

    def figure_key(self, model: AppModel) -> object:
        # The row too: its bars are all new lines (a whole repaint of this pane).
        return (model.views, model.player.step, model.player.row, model.lang, self.content_width(), self.size.height)

    def build(self, model: AppModel) -> Block:
        return bar_block(model.views, model.view, model.player.row, model.lang, self.palette(), self.content_width(),
                         note=self._note(model))

    def _tallest(self, model: AppModel, note: bool) -> int:
        palette, width = self.palette(), self.content_width()
        return max(bar_block(model.views, v, v.spec.focus_rows[0], model.lang, palette, width, note).height
                   for v in model.views)

    def _note(self, model: AppModel) -> bool:
        """The closing note only where it lets every step's bars fit the pane
        (at 80x24 step 4's two groups fill it): left out at every step if
        that alone makes them fit, so no step scrolls or cuts its last line."""
        height = self.scrollable_content_region.height if self.size.height else 0
        key = (model.views, model.lang, self.content_width(), height)
        if self._note_for is None or self._note_for[0] != key:
            note = not height or self._tallest(model, True) <= height or self._tallest(model, False) > height
            self._note_for = (key, note)
        return self._note_for[1]

    def frame_size(self, model: AppModel) -> Size:
        # Never shrinks within a frame (views, language, width): no layout pass when stepping.
        assert self.figure is not None
        key = (model.views, model.lang, self.content_width(), self._note(model))
        held = self._held
        height = self.figure.height
        if held is not None and held[0] == key:
            height = max(height, held[1])
        else:  # a new frame: as tall as the tallest step's bars at its focus row
            height = max(height, self._tallest(model, self._note(model)))
        self._held = (key, height)
        return Size(self.content_width(), height)
