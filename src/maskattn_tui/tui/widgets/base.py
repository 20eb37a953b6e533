"""What the app's widgets share: the bound app model, and for the figure's
line-API widgets a Palette of the theme's styles (tui/themed.py, read from
their screen) and the line-drawing scaffold: a figure of blocks
(render.grid_lines) shown through `render_line`, a row move repainting only
the lines that changed."""

from __future__ import annotations

from rich.segment import Segment
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.grid_lines import Block
from maskattn_tui.render.palette import UNICODE, Glyphs, Palette
from maskattn_tui.tui.themed import themed_palette


class ModelView(Widget):
    """A widget that renders (part of) the bound AppModel and nothing else.
    It repaints only when `shown(model)` changes."""

    model: reactive[AppModel | None] = reactive(None, repaint=False)

    def __init__(self, glyphs: Glyphs = UNICODE, **kwargs) -> None:
        super().__init__(**kwargs)
        self.glyphs = glyphs

    def shown(self, model: AppModel) -> object:
        """What of the model this widget draws (a repaint when it changes)."""
        return model

    def watch_model(self, old: AppModel | None, new: AppModel | None) -> None:
        if new is not None and (old is None or self.shown(old) != self.shown(new)):
            self.refresh()

    def tr(self, text: str) -> str:
        return Palette(glyphs=self.glyphs).tr(text)


class LinesView(ScrollView, can_focus=False):
    """A line-API view of a figure (a Block): `figure_for(model)` builds it,
    `render_line` draws only the lines in view. The virtual size is the
    frame's (`frame_for`), the same for every step, so stepping lays
    nothing out again."""

    model: reactive[AppModel | None] = reactive(None, repaint=False)
    #: Lines at the top held still when scrolling down.
    fixed_lines = 0
    #: The sizes the last layout pass gave (_size_updated).
    _sized: tuple[Size, Size, Size] | None = None

    def __init__(self, glyphs: Glyphs = UNICODE, **kwargs) -> None:
        super().__init__(**kwargs)
        self.glyphs = glyphs
        self.figure: Block | None = None
        self._figure_key: object = None
        #: How often lines were drawn (a behaviour measure for tests).
        self.lines_drawn = 0

    # -- what subclasses define ------------------------------------------------
    def figure_key(self, model: AppModel) -> object:
        """Everything the figure depends on but the selected row."""
        raise NotImplementedError

    def build(self, model: AppModel) -> Block:
        raise NotImplementedError

    def frame_size(self, model: AppModel) -> Size:
        """The virtual size for every step of the present frame."""
        assert self.figure is not None
        return Size(self.figure.width, self.figure.height)

    def on_mount(self) -> None:
        super().on_mount()
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.glyphs.box == "ASCII":
            from maskattn_tui.tui.widgets.panes import use_ascii_scrollbars

            use_ascii_scrollbars(self)

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # Performance: Textual's ScrollView compares the virtual size the
        # layout passes (for a view without children, its content region)
        # with the one this view set, so for a figure taller or wider than
        # its pane they differ on every layout pass of the screen, and its
        # scrollbars were repainted each time: one more frame after the
        # first paint, and after every toast. Only a real change goes on.
        seen = (size, self.virtual_size, container_size)
        if seen == self._sized:
            return False
        self._sized = seen
        return super()._size_updated(size, virtual_size, container_size, layout)

    # -- palette -------------------------------------------------------------------
    def palette(self) -> Palette:
        return themed_palette(self, self.glyphs)

    def _theme_changed(self, _theme) -> None:
        # Sent after the new theme's CSS is applied: a new palette (read
        # again after the style update), so a new key, and the figure is drawn again.
        self.update_figure(None)

    # -- updating ------------------------------------------------------------------
    def watch_model(self, old: AppModel | None, new: AppModel | None) -> None:
        self.update_figure(old)

    def on_resize(self) -> None:
        self.update_figure(None)  # a new width is a new key: drawn again only then

    def content_width(self) -> int:
        """The width the lines are drawn at: the content region's, or before
        the first layout the one the app's arithmetic planned (`planned`),
        so the first paint already shows the figure."""
        width = self.scrollable_content_region.width if self.size.width else 0
        return max(8, width or self.planned or 8)

    #: The content width tui.layout planned for this pane (None: unknown).
    planned: int | None = None

    def drawable(self) -> bool:
        """May the figure be built now? (A view that lays out by its own
        width waits for its first layout.)"""
        return True

    def selection_moved(self, old, new) -> bool:
        """With the same figure key: did only the selection move (the player's row)?"""
        return old.player.row != new.player.row

    def update_figure(self, old: AppModel | None) -> None:
        model = self.model
        if model is None or not self.is_mounted or not self.drawable():
            return
        # The palette is part of the key, compared by value: a style update
        # that leaves the theme's styles as they were draws nothing again.
        key = (self.figure_key(model), self.palette())
        if key == self._figure_key and self.figure is not None:
            if old is not None and self.selection_moved(old, model):
                self.figure = self.build(model)
                self.row_moved(old, model)
            return
        self._figure_key = key
        self.figure = self.build(model)
        size = self.frame_size(model)
        if size != self.virtual_size:
            self.virtual_size = size
        self.refresh()

    def row_moved(self, old: AppModel, new: AppModel) -> None:
        """Only the selected row changed: repaint the lines that show it."""
        assert self.figure is not None
        for row in {old.player.row, new.player.row}:
            for y in self.figure.row_lines(row):
                self.refresh_content_line(y)

    def refresh_content_line(self, y: int) -> None:
        """Repaint content line `y` where it is on screen (fixed lines do not scroll)."""
        screen_y = y if y < self.fixed_lines else y - int(self.scroll_y)
        if 0 <= screen_y < self.size.height and not (y >= self.fixed_lines and screen_y < self.fixed_lines):
            self.refresh_lines(screen_y + int(self.scroll_y), 1)

    # -- drawing ---------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        figure = self.figure
        if figure is None:
            return Strip.blank(width, self.rich_style)
        fy = y if y < self.fixed_lines else y + int(self.scroll_y)
        self.lines_drawn += 1
        if fy >= figure.height:
            return Strip.blank(width, self.rich_style)
        segments = figure.window(fy, int(self.scroll_x), width)
        return Strip(segments, width).apply_style(self.rich_style)

    def blank(self) -> list[Segment]:
        return [Segment(" " * self.size.width)]
