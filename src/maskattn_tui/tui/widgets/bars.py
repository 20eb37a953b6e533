"""The softmax bar panel widget: render.bars.softmax_bars for the bound
state, bars sized to the room the panel has."""

from __future__ import annotations

from rich.console import RenderableType

from maskattn_tui.render.bars import softmax_bars
from maskattn_tui.tui.widgets.base import FigureView, natural_width

BAR_MIN, BAR_MAX = 6, 40


class BarsView(FigureView):
    def bars(self, width: int) -> RenderableType:
        state = self.state
        assert state is not None
        return softmax_bars(self.view, state.row, state.lang, self.palette(), width=width)

    def bar_width(self, room: int) -> int:
        """The longest bars whose rows still fit in `room` cells."""
        console = self.app.console
        options = console.options
        for width in range(BAR_MAX, BAR_MIN, -1):
            if natural_width(console, options, self.bars(width)) <= room:
                return width
        return BAR_MIN

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        room = self.parent.content_size.width if self.parent is not None else self.content_size.width
        return self.bars(self.bar_width(room))
