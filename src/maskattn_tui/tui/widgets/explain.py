"""The explanation pane: the step's caption, then the five sections. Two
widgets, so that a step repaints only the caption: the sections (and the
inputs note) change only with the language. The caption keeps one height
across the steps (the tallest caption's, at the pane's width), so stepping
never moves the sections and needs no layout pass."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult

from maskattn_tui.render.explain import caption, sections
from maskattn_tui.render.palette import Palette
from maskattn_tui.render.wrap import Paragraph
from maskattn_tui.lesson.f12 import Figure
from maskattn_tui.model.step_machine import PlayerState
from maskattn_tui.tui.widgets.base import Drawn, FigureView, StateView


class Tallest:
    """`shown`, padded with blank lines to the height of the tallest of
    `every` at the width it is drawn at (kept in `heights` under `key`)."""

    def __init__(self, shown: RenderableType, every: tuple[RenderableType, ...], heights: dict, key: object) -> None:
        self.shown, self.every, self.heights, self.key = shown, every, heights, key

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.shown, options.update(height=None), pad=False, new_lines=True)
        key = (self.key, options.max_width)
        if key not in self.heights:
            self.heights[key] = max(len(console.render_lines(r, options.update(height=None), pad=False))
                                    for r in self.every)
        for line in lines:
            yield from line
        for _ in range(self.heights[key] - len(lines)):
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(0, 0)  # text: it wraps to any width, needs none of its own


class CaptionView(FigureView):
    """The step's title and caption."""

    def render_state(self, state: PlayerState) -> RenderableType:
        view = self.view_of(state)
        index = min(state.step, len(self.views)) - 1  # as view_of
        lang = state.lang

        def draw(palette: Palette) -> RenderableType:
            every = tuple(caption(view, lang, palette) for view in self.views)
            key = (tuple(id(view) for view in self.views), lang, self.glyphs, tuple(palette.styles.items()))
            return Tallest(every[index], every, self.__dict__.setdefault("_heights", {}), key)

        return self.drawn(view, draw, lang)


class SectionsView(FigureView):
    """The figure's sections and the inputs note: the same for every step."""

    def __init__(self, figure: Figure, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.figure = figure

    def render_state(self, state: PlayerState) -> RenderableType:
        lang = state.lang

        def draw(palette: Palette) -> RenderableType:
            inputs = Text(palette.t("render.inputs", lang), style=palette.style("title"))
            inputs.append(palette.pick(self.figure.inputs_note, lang), style=palette.style("dim"))
            return Group(Text(""), sections(self.figure, lang, palette), Paragraph(inputs))

        # Keyed by the language alone (not the step): drawn once per width.
        palette = self.palette()
        key = ("sections", lang, self.glyphs, tuple(palette.styles.items()))
        return Drawn(lambda: draw(palette), key, self.__dict__.setdefault("_drawings", {}))


class ExplainView(StateView):
    """The caption above the sections; passes the bound state down."""

    DEFAULT_CSS = """
    ExplainView {
        height: auto;
        width: 1fr;
        layout: vertical;
    }
    """

    def __init__(self, figure: Figure, views, glyphs, **kwargs) -> None:
        super().__init__(views, glyphs, **kwargs)
        self.figure = figure

    def drawn_lines(self):
        return []  # nothing of its own: the children draw and lay themselves out

    def fits(self, lines) -> bool:
        return True

    def compose(self) -> ComposeResult:
        bound = {"state": ExplainView.state, "views": ExplainView.views}
        yield CaptionView(self.views, self.glyphs, id="explain-caption").data_bind(**bound)
        yield SectionsView(self.figure, self.views, self.glyphs, id="explain-sections").data_bind(**bound)
