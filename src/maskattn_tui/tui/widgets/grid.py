"""The mask grid widget: draws render.grid.mask_grid for the bound state and
reports clicks on a query row as a RowClicked message (the app decides)."""

from __future__ import annotations

from rich.console import RenderableType
from textual import events
from textual.message import Message

from maskattn_tui.render.grid import ROW_META, mask_grid
from maskattn_tui.model.step_machine import PlayerState
from maskattn_tui.tui.widgets.base import FigureView


class GridView(FigureView):
    """Query rows x key columns of the current step; the selected row marked."""

    class RowClicked(Message):
        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def render_state(self, state: PlayerState) -> RenderableType:
        view = self.view_of(state)
        return self.drawn(view, lambda palette: mask_grid(view, state.row, state.lang, palette), state.row, state.lang)

    def row_at(self, y: int) -> int | None:
        """Which query row is drawn on content line y (None: not a row):
        render.grid tags each row's label with its index as style meta."""
        if self.state is None:
            return None
        console = self.app.console
        options = console.options.update(width=max(1, self.content_size.width), height=None)
        lines = console.render_lines(self.render(), options, pad=False)
        if not 0 <= y < len(lines):
            return None
        for segment in lines[y]:
            if segment.style is not None and ROW_META in segment.style.meta:
                return segment.style.meta[ROW_META]
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = self.row_at(offset.y)
        if row is not None:
            self.post_message(self.RowClicked(row))
