"""What every state-rendering widget shares: a bound `state` and, for the
figure widgets, a Palette read from component classes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.columns import Columns
from rich.console import Console, ConsoleOptions, Group, RenderResult, RenderableType
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.widget import Widget

from maskattn_tui.render.wrap import Flow, Paragraph
from maskattn_tui.render.palette import DEFAULT_STYLES, Glyphs, Palette, UNICODE
from maskattn_tui.step_machine import PlayerState
from maskattn_tui.stepview import StepView

#: The render meanings, in the order of render.palette.DEFAULT_STYLES.
MEANINGS: tuple[str, ...] = tuple(DEFAULT_STYLES)


def component_class(meaning: str) -> str:
    """'future+pad' -> 'mask--future-pad', 'bar.blocked' -> 'mask--bar-blocked'."""
    return "mask--" + meaning.replace("+", "-").replace(".", "-")


#: "As wide as it likes" when measuring.
UNBOUNDED = 10_000


def natural_width(console: Console, options: ConsoleOptions, renderable: RenderableType) -> int:
    """The width a figure needs so that nothing is squeezed: tables at their
    full width; text (it wraps) and column flows (they stack) add nothing
    beyond their widest part."""
    if isinstance(renderable, Drawn):
        return natural_width(console, options, renderable.renderable)
    if isinstance(renderable, (Text, Paragraph, Flow)):
        return 0
    if isinstance(renderable, Group):
        return max((natural_width(console, options, r) for r in renderable.renderables), default=0)
    if isinstance(renderable, Columns):
        return max((natural_width(console, options, r) for r in renderable.renderables), default=0)
    if isinstance(renderable, str):
        return 0
    return Measurement.get(console, options.update_width(UNBOUNDED), renderable).maximum


#: How many (state, width) drawings a figure widget keeps.
DRAWN_MAX = 64


class Drawn:
    """A renderable drawn once per width: its lines are kept in `store`
    under (key, width), so Textual's measuring, its second layout pass
    and the paint reuse one drawing instead of laying out Rich tables and
    re-wrapping text each time. `key` must name everything the drawing
    depends on besides the width."""

    def __init__(self, renderable: RenderableType, key: object, store: dict) -> None:
        self.renderable = renderable
        self.key = key
        self.store = store

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = (self.key, options.max_width)  # the figures do not depend on a height
        lines = self.store.get(key)
        if lines is None:
            if len(self.store) >= DRAWN_MAX:
                self.store.clear()
            lines = self.store[key] = console.render_lines(
                self.renderable, options.update(height=None), pad=False, new_lines=True)
        for line in lines:
            yield from line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)

    def __getattr__(self, name: str) -> object:
        # Otherwise it reads as what it draws (e.g. a Group's renderables).
        if name == "renderable":
            raise AttributeError(name)
        return getattr(self.renderable, name)


class StateView(Widget):
    """A widget that shows the app's PlayerState (bound, read-only).

    A new state redraws only what changed: when the widget's size stays
    the same (`layout_key`), only its lines that differ from the ones on
    screen are repainted, with no layout pass; otherwise the widget asks
    for a layout pass and a full repaint. Textual itself would repaint the
    widget's whole region (it does not compare with what the terminal
    shows), and lay the screen out again for every `layout=True` change."""

    state: reactive[PlayerState | None] = reactive(None, repaint=False)
    #: The steps: the F12 five, or one explored configuration (bound too).
    views: reactive[tuple[StepView, ...]] = reactive((), repaint=False)

    def __init__(self, views: Sequence[StepView], glyphs: Glyphs = UNICODE, **kwargs) -> None:
        super().__init__(**kwargs)
        self.set_reactive(StateView.views, tuple(views))
        self.glyphs = glyphs
        #: The layout key and the lines last drawn (None: unknown).
        self._shown: tuple[object, list[list[Segment]] | None] = (None, None)

    def drawn_lines(self) -> list[list[Segment]] | None:
        """The content's lines at the present width (None before the
        widget has a size)."""
        if self.state is None or not self.views or not self.is_mounted:
            return None
        width = self._size.width
        if width <= 0:
            return None
        console = self.app.console
        options = console.options.update(width=width, height=None)
        return console.render_lines(self.render(), options, pad=False)

    def layout_key(self, lines: list[list[Segment]]) -> object:
        """What the widget's size depends on; by default the width and the
        number of lines (the condition line wraps)."""
        return (self._size.width, len(lines))

    def forget_shown(self) -> None:
        """Something else repainted the widget: the next change repaints it all."""
        self._shown = (None, None)

    def _update(self) -> None:
        lines = self.drawn_lines()
        if lines is None:
            self.forget_shown()
            self.refresh(layout=True)
            return
        key = self.layout_key(lines)
        old_key, old_lines = self._shown
        self._shown = (key, lines)
        if old_lines is None or key != old_key:
            self.refresh(layout=True)
        elif len(old_lines) != len(lines):
            self.refresh()
        else:
            width = self._size.width
            changed = [Region(0, y, width, 1) for y, (old, new) in enumerate(zip(old_lines, lines)) if old != new]
            if changed:
                self.refresh(*changed)

    def on_resize(self) -> None:
        # Laid out and repainted at a new size: what is on screen now.
        lines = self.drawn_lines()
        self._shown = (None, None) if lines is None else (self.layout_key(lines), lines)

    def _watch_state(self) -> None:
        self._update()

    def _watch_views(self) -> None:
        # The caches are keyed by the views' ids: forget the old ones.
        for cache in ("_natural_widths", "_drawings", "_heights"):
            self.__dict__.pop(cache, None)
        self._update()

    @property
    def view(self) -> StepView:
        assert self.state is not None
        # The app replaces views and state together; between the two
        # assignments a step number may briefly exceed the new views.
        return self.views[min(self.state.step, len(self.views)) - 1]

    def tr(self, text: str) -> str:
        """`text` as the glyph set can show it (ASCII spellings in ASCII mode)."""
        return Palette(glyphs=self.glyphs).tr(text)


class FigureView(StateView):
    """A StateView drawn by a render/ function with a Palette whose styles
    come from this widget's component classes (so from the theme)."""

    COMPONENT_CLASSES = {component_class(m) for m in MEANINGS}

    DEFAULT_CSS = """
    FigureView {
        height: auto;
        width: auto;
        & > .mask--allowed { background: $success-darken-2; color: $text; text-style: bold; }
        & > .mask--future { background: $error-darken-2; color: $text; text-style: bold; }
        & > .mask--pad { background: $warning-darken-3; color: $text; text-style: bold; }
        & > .mask--future-pad { background: $secondary-darken-2; color: $text; text-style: bold; }
        & > .mask--focus { text-style: bold reverse; }
        & > .mask--selected { text-style: bold underline; color: $accent; }
        & > .mask--header { text-style: bold; }
        & > .mask--dim { text-style: dim; }
        & > .mask--cached { color: $primary-lighten-2; }
        & > .mask--new { text-style: bold; }
        & > .mask--bar { color: $success; }
        & > .mask--bar-blocked { color: $error; }
        & > .mask--bar-empty { color: $foreground-muted; }
        & > .mask--number { text-style: bold; }
        & > .mask--diff { background: $primary-darken-2; color: $text; text-style: bold; }
        & > .mask--warning { color: $error; text-style: bold; }
        & > .mask--title { text-style: bold; }
    }
    """

    def drawn(self, draw: Callable[[Palette], RenderableType], *key: object) -> Drawn:
        """`draw(palette)`, drawn once per width for this view, `key` (what
        else it depends on), glyphs and component styles (so the theme)."""
        palette = self.palette()
        full_key = (id(self.view), key, self.glyphs, tuple(palette.styles.items()))
        return Drawn(draw(palette), full_key, self.__dict__.setdefault("_drawings", {}))

    def palette(self) -> Palette:
        styles: dict[str, Style] = {
            m: self.get_component_rich_style(component_class(m), partial=True) for m in MEANINGS
        }
        return Palette(styles=styles, glyphs=self.glyphs)

    def natural(self) -> int:
        """The width the figure's tables need (0 for text), measured once
        per state."""
        key = (id(self.view), self.state, self.glyphs, self.width_key())
        cache = self.__dict__.setdefault("_natural_widths", {})
        if key not in cache:
            console = self.app.console
            cache[key] = natural_width(console, console.options, self.render())
        return cache[key]

    def layout_key(self, lines: list[list[Segment]]) -> object:
        """The figure's size: the width its tables need and its height at
        the present width. Equal sizes (steps 1-3 draw equal grids, the
        caption keeps one height) mean a repaint, not a layout pass."""
        return (self.natural(), super().layout_key(lines))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """At least the container's width (text wraps to it); wider when a
        table needs more, so that the pane scrolls sideways instead of the
        table being squeezed."""
        if self.state is None or not self.views:
            return container.width
        return max(container.width, min(self.natural(), UNBOUNDED))

    def width_key(self) -> object:
        """Anything else the figure's natural width depends on."""
        return None
