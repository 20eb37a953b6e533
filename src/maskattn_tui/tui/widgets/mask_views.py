"""Mask mode's three line-API views, bound to a MaskState (model/
mask_model.py) instead of the app model: the two tables side by side, the
bars of the selected row, the explanation. They reuse LinesView's drawing
(render_line draws only the lines in view) and the doctor's sources.

A move of the selection keeps the grid's blocks and repaints the two
rows' lines (and scrolls to the selection); the bars and the explanation
are small and drawn again."""

from __future__ import annotations

from textual.geometry import Size

from maskattn_tui.maskmode.document import MaskDocument
from maskattn_tui.model.mask_model import MaskState
from maskattn_tui.render.grid_lines import Block
from maskattn_tui.render.mask_figure import explanation, keys_shown, row_bars, table_sources, twin_tables
from maskattn_tui.render.mask_lines import Twin
from maskattn_tui.tui.widgets.base import LinesView

class MaskView(LinesView):
    """A LinesView of a mask document; `model` is the MaskState."""

    #: The frame's key and its height so far (see held_size).
    _held: tuple[object, int] | None = None

    def __init__(self, doc: MaskDocument, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.doc = doc

    @property
    def lang(self) -> str:
        """The app model's language (mask mode's screen reads it there)."""
        return self.screen.lang

    def width(self) -> int:
        """The width lines are drawn for (the scrollbar's gutter excluded)."""
        return max(8, self.scrollable_content_region.width)

    def drawable(self) -> bool:
        return self.size.width > 0  # lines are drawn for the laid-out width

    def selection_moved(self, old: MaskState, new: MaskState) -> bool:
        """A new key (block size, drill-down, language, width...) is built and
        laid out anew; with the same key, any other change moved the selection."""
        return old != new

    def held_size(self, state: MaskState) -> Size:
        """As tall as the tallest figure of this view (block size, drill-down,
        language, width): a move never shrinks it, so a new virtual size,
        and the layout of the whole screen it costs, is rare."""
        assert self.figure is not None
        key = (state.size, state.window, self.lang, self.width())
        held = self._held
        height = self.figure.height if held is None or held[0] != key else max(held[1], self.figure.height)
        self._held = (key, height)
        return Size(self.width(), height)


class MaskGridView(MaskView):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._built: tuple[object, Twin] | None = None
        self._sources: dict[object, tuple] = {}

    def sources(self, state: MaskState) -> tuple:
        """The user's and the rule's source for the view (kept: their tiles
        and block counts are what a move reads)."""
        key = (state.size, state.window)
        if key not in self._sources:
            pair = table_sources(self.doc, state, getattr(self.app, "labels", None))  # --labels
            if len(self._sources) > 8:
                self._sources.clear()
            self._sources[key] = pair
        return self._sources[key]

    def figure_key(self, state: MaskState) -> object:
        return (state.size, state.window, self.lang, self.width())

    def build(self, state: MaskState) -> Block:
        key = (self.figure_key(state), self.palette())
        if self._built is not None and self._built[0] == key:
            twin = self._built[1]
        else:
            twin = self._twin(state)
            self._built = (key, twin)
            self.fixed_lines = twin.header
        twin.select(state.row, state.col)
        return twin

    def _twin(self, state: MaskState) -> Twin:
        return twin_tables(self.doc, state, self.lang, self.sources(state), self.palette(), self.width())

    def frame_size(self, state: MaskState) -> Size:
        assert isinstance(self.figure, Twin)
        return Size(self.figure.scroll_width(self.width()), self.figure.height)

    def row_moved(self, old: MaskState, new: MaskState) -> None:
        figure = self.figure
        assert isinstance(figure, Twin)
        for row in {old.row, new.row}:
            for y in figure.row_lines(row):
                self.refresh_content_line(y)
        self.reveal(new)

    def reveal(self, state: MaskState) -> None:
        """Scroll so that the selected cell is in view under the header and
        right of the row labels."""
        figure = self.figure
        if not isinstance(figure, Twin):
            return
        y = figure.header + state.row
        top = int(self.scroll_y)
        shown = self.scrollable_content_region.height - self.fixed_lines
        target_y = top
        if y - self.fixed_lines < top:
            target_y = max(0, y - self.fixed_lines)
        elif shown > 0 and y - self.fixed_lines >= top + shown:
            target_y = y - self.fixed_lines - shown + 1
        target_x = figure.reveal_x(int(self.scroll_x), self.width(), state.col)
        if (target_x, target_y) != (int(self.scroll_x), top):
            self.scroll_to(x=target_x, y=target_y, animate=False, immediate=True)

    def update_figure(self, old) -> None:
        super().update_figure(old)
        if self.model is not None and isinstance(self.figure, Twin):
            self.reveal(self.model)


class MaskBarsView(MaskView):
    def figure_key(self, state: MaskState) -> object:
        return (state.place, state.size, state.window, self.lang, self.width(), self.size.height)

    def keys_shown(self, state: MaskState, room: int) -> list[int]:
        return keys_shown(self.doc, state, room)

    def build(self, state: MaskState) -> Block:
        room = max(1, self.scrollable_content_region.height - 3)
        return row_bars(self.doc, state, self.lang, self.palette(), self.width(), room)

    def row_moved(self, old: MaskState, new: MaskState) -> None:
        self.refresh()

    def frame_size(self, state: MaskState) -> Size:
        return self.held_size(state)


class MaskExplainView(MaskView):
    def figure_key(self, state: MaskState) -> object:
        return (state, self.lang, self.width())

    def build(self, state: MaskState) -> Block:
        from maskattn_tui.render.grid_lines import TextBlock
        from maskattn_tui.render.mask_stats import stats_lines

        palette, width = self.palette(), self.width()
        told = explanation(self.doc, state, self.lang, palette, width)
        # FlexAttention's block statistics first: what `print(block_mask)` says.
        return TextBlock([*stats_lines(self.doc.tables, self.lang, palette, width), *told.lines])

    def row_moved(self, old: MaskState, new: MaskState) -> None:
        self.refresh()

    def frame_size(self, state: MaskState) -> Size:
        return self.held_size(state)
