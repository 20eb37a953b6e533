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
            console = self.app.console
            fits = lambda width: natural_width(console, console.options, self.bars(width)) <= room  # noqa: E731
            low, high = BAR_MIN, BAR_MAX  # binary search: rows grow with the bar
            while low < high:
                mid = (low + high + 1) // 2
                low, high = (mid, high) if fits(mid) else (low, mid - 1)
            self._widths[key] = low
        return self._widths[key]

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        room = self.parent.content_size.width if self.parent is not None else self.content_size.width
        return self.bars(self.bar_width(room))
