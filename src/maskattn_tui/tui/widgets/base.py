"""What every state-rendering widget shares: a bound `state` and, for the
figure widgets, a Palette read from component classes."""

from __future__ import annotations

from collections.abc import Sequence

from rich.columns import Columns
from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
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
    if isinstance(renderable, (Text, Paragraph, Flow)):
        return 0
    if isinstance(renderable, Group):
        return max((natural_width(console, options, r) for r in renderable.renderables), default=0)
    if isinstance(renderable, Columns):
        return max((natural_width(console, options, r) for r in renderable.renderables), default=0)
    if isinstance(renderable, str):
        return 0
    return Measurement.get(console, options.update_width(UNBOUNDED), renderable).maximum


class StateView(Widget):
    """A widget that shows the app's PlayerState (bound, read-only)."""

    state: reactive[PlayerState | None] = reactive(None, layout=True)
    #: The steps: the F12 five, or one explored configuration (bound too).
    views: reactive[tuple[StepView, ...]] = reactive((), layout=True)

    def __init__(self, views: Sequence[StepView], glyphs: Glyphs = UNICODE, **kwargs) -> None:
        super().__init__(**kwargs)
        self.set_reactive(StateView.views, tuple(views))
        self.glyphs = glyphs

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

    def palette(self) -> Palette:
        styles: dict[str, Style] = {
            m: self.get_component_rich_style(component_class(m), partial=True) for m in MEANINGS
        }
        return Palette(styles=styles, glyphs=self.glyphs)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """At least the container's width (text wraps to it); wider when a
        table needs more, so that the pane scrolls sideways instead of the
        table being squeezed."""
        console = self.app.console
        need = natural_width(console, console.options, self.render())
        return max(container.width, min(need, UNBOUNDED))
