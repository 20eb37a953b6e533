"""The softmax bar panel widget: render.bars.softmax_bars for the bound
state, the bars as long as the widget's own width allows."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement

from maskattn_tui.render.bars import softmax_bars
from maskattn_tui.render.palette import Palette
from maskattn_tui.model.step_machine import PlayerState
from maskattn_tui.tui.widgets.base import FigureView, natural_width

BAR_MIN, BAR_MAX = 4, 40


class BarsView(FigureView):
    """Sized from its own width (which the layout gives it), never from
    its neighbours': one layout pass settles it when the grid beside it
    grows or shrinks."""

    def _measure(self, state: PlayerState) -> tuple[int, int]:
        """The rows' width with the shortest bars: without the reasons
        (the least the bars need) and with them, measured once per state."""
        view = self.view_of(state)
        key = (id(view), state, self.glyphs)
        cache = self.__dict__.setdefault("_natural_widths", {})
        if key not in cache:
            console, palette = self.app.console, self.palette()
            cache[key] = tuple(
                natural_width(console, console.options,
                              softmax_bars(view, state.row, state.lang, palette, width=BAR_MIN, reasons=reasons))
                for reasons in (False, True))
        return cache[key]

    def natural_of(self, state: PlayerState) -> int:
        return self._measure(state)[0]

    def render_state(self, state: PlayerState) -> RenderableType:
        view = self.view_of(state)
        bare, whole = self._measure(state)

        def draw(palette: Palette) -> RenderableType:
            return FitBars(lambda width, reasons: softmax_bars(view, state.row, state.lang, palette,
                                                               width=width, reasons=reasons), bare, whole)

        return self.drawn(view, draw, state.row, state.lang)


class FitBars:
    """The bars, as long as the width they are drawn at allows, with the
    reasons for blocked keys when they fit whole: decided while drawing
    (not from the widget's present size), so that measuring a height at a
    new width during layout draws what the paint will."""

    def __init__(self, make: Callable[[int, bool], RenderableType], bare: int, whole: int) -> None:
        #: `bare`, `whole`: the rows' width with the shortest bars, without
        #: and with the reasons.
        self.make, self.bare, self.whole = make, bare, whole

    def layout(self, room: int) -> tuple[int, bool]:
        """The bars' length and whether the reasons are shown, in `room`
        cells: every bar is exactly its length in a no-wrap column, so the
        rows grow one cell per cell of bar."""
        reasons = room >= self.whole
        need = self.whole if reasons else self.bare
        return max(BAR_MIN, min(BAR_MAX, BAR_MIN + room - need)), reasons

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.make(*self.layout(options.max_width))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(self.bare, self.whole)
