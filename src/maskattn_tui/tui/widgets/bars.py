"""The softmax bar panel widget: render.bars.softmax_bars for the bound
state, bars sized to the room the panel has."""

from __future__ import annotations

from rich.console import RenderableType

from maskattn_tui.render.bars import softmax_bars
from maskattn_tui.tui.widgets.base import FigureView, natural_width

BAR_MIN, BAR_MAX = 4, 40


class BarsView(FigureView):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._widths: dict[tuple, int] = {}

    def watch_views(self) -> None:
        self._widths.clear()  # keyed by the view's id: forget the old ones

    def bars(self, width: int) -> RenderableType:
        state = self.state
        assert state is not None
        return softmax_bars(self.view, state.row, state.lang, self.palette(), width=width)

    def bar_width(self, room: int) -> int:
        """The longest bars whose rows still fit in `room` cells."""
        key = (id(self.view), self.state, room)
        if key not in self._widths:
            # Every bar is exactly `width` cells in a no-wrap column, so the
            # rows grow one cell per cell of bar: one measurement at the
            # shortest bar says how long they can be.
            console = self.app.console
            spare = room - natural_width(console, console.options, self.bars(BAR_MIN))
            self._widths[key] = max(BAR_MIN, min(BAR_MAX, BAR_MIN + spare))
        return self._widths[key]

    def room(self) -> int:
        """The pane's width: the bars are sized to it."""
        return self.parent.content_size.width if self.parent is not None else self.content_size.width

    def width_key(self) -> object:
        return self.room()

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        width = self.bar_width(self.room())
        return self.drawn(lambda palette: self.bars(width), self.state.row, self.state.lang, width)
