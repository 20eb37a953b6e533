"""The mask grid: a line-API view (render_line -> Strip) of the step's
figure (render.figure_lines). The figure is drawn for the room the app's
layout gives it; a row move repaints only the lines of the two rows; the
row labels and the key header stay in view when it scrolls either way.
A click on a query row becomes a RowClicked message (the app decides)."""

from __future__ import annotations

from textual import events
from textual.geometry import Size
from textual.message import Message

from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.figure_lines import Room, build_figure, frame_size
from maskattn_tui.render.palette import Palette
from maskattn_tui.render.grid_lines import FULL_CELL_MIN, Block, Column, SideBySide, TableBlock, TextBlock
from maskattn_tui.tui.widgets.base import LinesView


def row_at(block: Block, y: int) -> int | None:
    """The query row drawn on figure line `y` (None: not a row)."""
    if isinstance(block, Column):
        if not 0 <= y < block.height:
            return None
        inner, dy = block.locate(y)
        return row_at(inner, dy)
    if isinstance(block, SideBySide):
        return row_at(block.left, y)
    if isinstance(block, TableBlock):
        r = y - block.header
        return r if 0 <= r < block.source.rows else None
    if isinstance(block, TextBlock):
        rows = [r for r in range(64) if y in block.row_lines(r)]
        return rows[0] if rows else None
    return None


class GridView(LinesView):
    class RowClicked(Message):
        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        #: Where the figure is drawn, and the walkthrough's largest figure
        #: there: both set by the app's layout (tui.layout).
        self.room = Room(40, 20)
        self.frame = (0, 0)

    def frame_of(self, model: AppModel, room: Room) -> tuple[int, int]:
        """The largest figure of the walkthrough in `room` (arithmetic; sizes
        do not depend on colours, so a plain palette: usable before mounting)."""
        return frame_size(model.views, model.lang, Palette(glyphs=self.glyphs), room, model.cells, self.tokens())

    def figure_key(self, model: AppModel) -> object:
        return (model.views, model.player.step, model.lang, model.cells, self.room, self.frame)

    def tokens(self) -> tuple[str, ...] | None:
        """The --labels the app was started with (None: none)."""
        return getattr(self.app, "labels", None)

    #: (figure key, the layout build_figure chose for it): a row move keeps
    #: the key, so it builds that layout alone (at 32 + 32 none fits the
    #: pane's height and all six were built on every move).
    _layout: tuple[object, tuple[int, bool, bool]] | None = None

    def build(self, model: AppModel) -> Block:
        key = self._figure_key
        layout = self._layout[1] if self._layout is not None and self._layout[0] == key else None
        figure = build_figure(model.view, model.player.row, model.lang, self.palette(), self.room, model.cells,
                              self.tokens(), layout)
        self._layout = (key, figure.layout)
        self.fixed_lines = figure.fixed if isinstance(figure, Column) else 0
        return figure

    def frame_size(self, model: AppModel) -> Size:
        assert self.figure is not None
        return Size(max(self.frame[0], self.figure.width), max(self.frame[1], self.figure.height))

    @property
    def compact(self) -> bool:
        return getattr(self.figure, "cell_width", FULL_CELL_MIN) < FULL_CELL_MIN

    def row_moved(self, old: AppModel, new: AppModel) -> None:
        super().row_moved(old, new)
        self.reveal_row(new.player.row)

    def reveal_row(self, row: int) -> None:
        """Scroll so that `row`'s line is in view under the fixed header."""
        if self.figure is None:
            return
        lines = self.figure.row_lines(row)
        if not lines:
            return
        y = lines[0]
        top = int(self.scroll_y)
        shown = self.size.height - self.fixed_lines - (1 if self.show_horizontal_scrollbar else 0)
        if y - self.fixed_lines < top:
            self.scroll_to(y=max(0, y - self.fixed_lines), animate=False, immediate=True)
        elif shown > 0 and y - self.fixed_lines >= top + shown:
            self.scroll_to(y=y - self.fixed_lines - shown + 1, animate=False, immediate=True)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.figure is None:
            return
        y = offset.y if offset.y < self.fixed_lines else offset.y + int(self.scroll_y)
        row = row_at(self.figure, y)
        if row is not None:
            self.post_message(self.RowClicked(row))
