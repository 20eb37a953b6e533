"""The explanation pane widget: the step's caption and the five sections."""

from __future__ import annotations

from rich.console import RenderableType

from maskattn_tui.render.explain import explanation
from maskattn_tui.scenario import Figure
from maskattn_tui.tui.widgets.base import FigureView


class ExplainView(FigureView):
    def __init__(self, figure: Figure, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.figure = figure

    def render(self) -> RenderableType:
        state = self.state
        if state is None:
            return ""
        return explanation(self.figure, self.view, state.lang, self.palette())
