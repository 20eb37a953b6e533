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

    def figure_key(self, model: AppModel) -> object:
        # The row too: its bars are all new lines (a whole repaint of this pane).
        return (model.views, model.player.step, model.player.row, model.lang, self.content_width())

    def build(self, model: AppModel) -> Block:
        return bar_block(model.views, model.view, model.player.row, model.lang, self.palette(), self.content_width())

    def frame_size(self, model: AppModel) -> Size:
        # Never shrinks within a frame (views, language, width): no layout pass when stepping.
        assert self.figure is not None
        key = (model.views, model.lang, self.content_width())
        held = self._held
        height = self.figure.height
        if held is not None and held[0] == key:
            height = max(height, held[1])
        else:  # a new frame: as tall as the tallest step's bars at its focus row
            palette, width = self.palette(), self.content_width()
            height = max(height, *(bar_block(model.views, v, v.spec.focus_rows[0], model.lang, palette, width).height
                                   for v in model.views))
        self._held = (key, height)
        return Size(self.content_width(), height)
