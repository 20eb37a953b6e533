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
from textual.containers import ScrollableContainer
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.widget import Widget

from maskattn_tui.render.wrap import Flow, Paragraph
from maskattn_tui.render.palette import DEFAULT_STYLES, Glyphs, Palette, UNICODE
from maskattn_tui.model.step_machine import PlayerState
from maskattn_tui.lesson.stepview import StepView

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
    if isinstance(renderable, (Group, Columns)):
        return max((natural_width(console, options, r) for r in renderable.renderables), default=0)
    if isinstance(renderable, str):
        return 0
    return Measurement.get(console, options.update_width(UNBOUNDED), renderable).maximum


#: How many (state, width) drawings a figure widget keeps.
DRAWN_MAX = 256


class Drawn:
    """A renderable drawn once per width: its lines (and its measure) are
    kept in `store` under (key, width), so Textual's measuring, its layout
    passes, the paint and the drawing ahead share one drawing instead of
    laying out Rich tables and re-wrapping text each time. `key` must name
    everything the drawing depends on besides the width."""

    def __init__(self, draw: Callable[[], RenderableType], key: object, store: dict) -> None:
        # Built only when it must be drawn or measured: on a repaint the
        # stored lines are all that is needed.
        self._draw = draw
        self.key = key
        self.store = store

    @property
    def renderable(self) -> RenderableType:
        built = self.__dict__.get("_renderable")
        if built is None:
            built = self._renderable = self._draw()
        return built

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
        # Textual measures what it paints: kept too, so a repaint builds nothing.
        key = (self.key, "measure", options.max_width)
        measured = self.store.get(key)
        if measured is None:
            measured = self.store[key] = Measurement.get(console, options, self.renderable)
        return measured


class StateView(Widget):
    """A widget that shows the app's PlayerState (bound, read-only).

    Its frame never shrinks while stepping: the widget keeps the largest
    size any shown state needed (in its pane, in this language, for these
    views; never more than a scrolling pane shows once the content fits
    it), so a step whose content fits in the frame redraws only its lines
    that changed, with no layout pass; only a state that needs more room
    grows the frame (one layout pass). Textual itself would repaint the
    widget's whole region and lay the screen out again for every change of
    size, moving everything below it."""

    state: reactive[PlayerState | None] = reactive(None, repaint=False)
    #: The steps: the F12 five, or one explored configuration (bound too).
    views: reactive[tuple[StepView, ...]] = reactive((), repaint=False)

    def __init__(self, views: Sequence[StepView], glyphs: Glyphs = UNICODE, **kwargs) -> None:
        super().__init__(**kwargs)
        self.set_reactive(StateView.views, tuple(views))
        self.glyphs = glyphs
        #: The lines last drawn (None: unknown, the next change repaints all).
        self._shown: list[list[Segment]] | None = None
        #: The frame: the views it holds for, the language (and frame_extra),
        #: and the widest natural width and, per container width, the
        #: tallest height seen.
        self._frame: tuple[tuple, tuple, dict] | None = None

    def frame(self) -> dict:
        """The frame for the present views and language (a new one when
        either changed)."""
        held = (self.state.lang if self.state is not None else "", self.frame_extra())
        if self._frame is None or self._frame[0] is not self.views or self._frame[1] != held:
            self._frame = (self.views, held, {"natural": 0, "heights": {}})
        return self._frame[2]

    def frame_extra(self) -> object:
        """Anything else whose change starts a new frame."""
        return None

    def lines_at(self, width: int, state: PlayerState | None = None) -> list[list[Segment]]:
        """The lines of the present state (or of `state`) at `width`."""
        console = self.app.console
        renderable = self.render() if state is None else self.render_state(state)
        return console.render_lines(renderable, console.options.update(width=width, height=None), pad=False)

    def render(self) -> RenderableType:
        return "" if self.state is None else self.render_state(self.state)

    def render_state(self, state: PlayerState) -> RenderableType:
        """What the widget shows for `state` (the widgets that draw a step
        define it; it reads nothing else of the widget's state). Others
        (containers, bars of one line) draw as Textual's widgets do."""
        return super().render()

    def prewarm(self, states: Sequence[PlayerState]) -> None:
        """Draw `states` at the present width now, while the app is idle, so
        that stepping to them later repaints from stored drawings."""
        width = self.content_size.width
        if width > 0 and self.views:
            for state in states:
                self.lines_at(width, state)

    def drawn_lines(self) -> list[list[Segment]] | None:
        """The content's lines at the present content width (None before
        the widget has a size)."""
        if self.state is None or not self.views or not self.is_mounted:
            return None
        width = self.content_size.width
        if width <= 0:
            return None
        return self.lines_at(width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The tallest content shown at this width so far (the frame), but
        no taller than the room the container shows when the present
        content fits in it: a short step after a tall one keeps the room,
        not a scrollbar over blank lines."""
        if self.state is None or not self.views or width <= 0 or self.is_container:
            return super().get_content_height(container, viewport, width)
        # Kept per width of the container (the pane), not of the widget: a
        # step wider than its pane is drawn at its own width and must still
        # hold the frame. (Textual measures with an empty container too.)
        heights, key = self.frame()["heights"], container.width or -width
        now = len(self.lines_at(width))
        heights[key] = max(heights.get(key, 0), now)
        if 0 < container.height and now <= container.height:
            return min(heights[key], container.height)
        return heights[key]

    def fits(self, lines: list[list[Segment]]) -> bool:
        """Whether `lines` can be shown at the present size (no layout pass
        needed): they fit, and the widget does not overflow a scrolling
        pane that `lines` alone would not (then it shrinks to the pane)."""
        present = self.content_size.height
        if len(lines) > present:
            return False
        shown = self.pane_height()
        return shown is None or present <= shown or len(lines) > shown

    def pane_height(self) -> int | None:
        """How many lines the scrolling pane around the widget shows (None:
        not in one)."""
        parent = self.parent
        if isinstance(parent, ScrollableContainer):
            return parent.scrollable_content_region.height
        return None

    def forget_shown(self) -> None:
        """Something else repainted the widget: the next change repaints it all."""
        self._shown = None

    def _update(self) -> None:
        lines = self.drawn_lines()
        if lines is None:
            self.forget_shown()
            self.refresh(layout=True)
            return
        old, self._shown = self._shown, lines
        if not self.fits(lines):
            self.refresh(layout=True)  # the frame grows: a layout pass, a full repaint
        elif old is None:
            self.refresh()
        else:
            # Lines past the end of the shorter drawing are blank on screen.
            width, blank = self.size.width, []
            changed = [
                Region(0, y, width, 1)
                for y in range(max(len(old), len(lines)))
                if (old[y] if y < len(old) else blank) != (lines[y] if y < len(lines) else blank)
            ]
            if changed:
                self.refresh(*changed)

    def on_resize(self) -> None:
        # Laid out and repainted at a new size: what is on screen now.
        self._shown = self.drawn_lines()

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
        return self.view_of(self.state)

    def view_of(self, state: PlayerState) -> StepView:
        # The app replaces views and state together; between the two
        # assignments a step number may briefly exceed the new views.
        return self.views[min(state.step, len(self.views)) - 1]

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

    def drawn(self, view: StepView, draw: Callable[[Palette], RenderableType], *key: object) -> Drawn:
        """`draw(palette)`, drawn once per width for `view`, `key` (what
        else it depends on), glyphs and component styles (so the theme)."""
        palette = self.palette()
        full_key = (id(view), key, self.glyphs, tuple(palette.styles.items()))
        return Drawn(lambda: draw(palette), full_key, self.__dict__.setdefault("_drawings", {}))

    def palette(self) -> Palette:
        """The styles of the meanings, read once per theme: Textual clears
        its own style cache on every refresh, so reading 17 component
        styles per step cost about a third of a step's time."""
        theme = self.app.theme
        cached = self.__dict__.get("_palette")
        if cached is None or cached[0] != theme:
            styles: dict[str, Style] = {
                m: self.get_component_rich_style(component_class(m), partial=True) for m in MEANINGS
            }
            cached = self._palette = (theme, Palette(styles=styles, glyphs=self.glyphs))
        return cached[1]

    def notify_style_update(self) -> None:
        self.__dict__.pop("_palette", None)  # the CSS was applied again
        super().notify_style_update()

    def natural(self) -> int:
        assert self.state is not None
        return self.natural_of(self.state)

    def natural_of(self, state: PlayerState) -> int:
        """The width the figure's tables need for `state` (0 for text),
        measured once per state."""
        key = (id(self.view_of(state)), state, self.glyphs, self.width_key())
        cache = self.__dict__.setdefault("_natural_widths", {})
        if key not in cache:
            console = self.app.console
            cache[key] = natural_width(console, console.options, self.render_state(state))
        return cache[key]

    def fits(self, lines: list[list[Segment]]) -> bool:
        return self.natural() <= self.frame()["natural"] and super().fits(lines)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """At least the container's width (text wraps to it); wider when a
        table needs more, so that the pane scrolls sideways instead of the
        table being squeezed. As wide as the widest step from the start
        (measuring is cheap; drawing is not), so that stepping never moves
        the panes sideways."""
        if self.state is None or not self.views:
            return container.width
        frame = self.frame()
        if not frame.get("measured"):
            state = self.state
            every = [state.goto(k) for k in range(1, state.steps + 1)] if len(self.views) > 1 else []
            frame["natural"] = max([frame["natural"], *(self.natural_of(s) for s in every)])
            frame["measured"] = True
        frame["natural"] = max(frame["natural"], self.natural())
        if container.width == 0:
            # Textual measuring an auto-width pane (it lays the children out
            # in no width): the frame's width, so the pane is sized alike
            # for every step.
            return min(frame["natural"], UNBOUNDED)
        # Laid out in the pane: a step that fits fills it; only a step wider
        # than the pane overflows it (and the pane scrolls sideways).
        return max(container.width, min(self.natural(), UNBOUNDED))

    def width_key(self) -> object:
        """Anything else the figure's natural width depends on."""
        return None
