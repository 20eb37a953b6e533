"""Explore mode's experiments and API lens, as a reading pane: the Rich
renderables of render.experiments and render.lens for the bound model's
session, drawn line by line (a LinesView). Prose is wrapped to the pane;
a table (or code) keeps its own width, and only a line wider than the pane
scrolls sideways (shift+←/→). Shown only when an experiment or the lens is
on (the screen's `-lab` class)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.geometry import Size

from maskattn_tui.i18n import t
from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.blocks import AtWidth, Block, Line, TextBlock
from maskattn_tui.tui.widgets.base import LinesView

#: Wider than this, a table is cut (no real table of the app comes near).
WIDEST = 1000


def reading_lines(renderable: RenderableType, console: Console, width: int) -> list[Line]:
    """`renderable`'s lines for a pane `width` cells wide: a Group's parts
    one under the other; prose (text, blocks built for the width they are
    given, matrices whose titles wrap) at `width`; a table or code at least
    as wide as it is whole (wider than the pane, it scrolls sideways)."""
    if isinstance(renderable, Group):
        return [line for part in renderable.renderables for line in reading_lines(part, console, width)]
    whole = console.options.update_width(WIDEST)
    if isinstance(renderable, Text):
        at = width
        if renderable.no_wrap:  # code: its lines as written
            at = max(width, max((cell_len(line) for line in renderable.plain.split("\n")), default=0))
    elif isinstance(renderable, Block):
        at = max(width, renderable.width)
    elif isinstance(renderable, AtWidth):  # built for the pane; a table that cannot be narrower stays whole
        at = max(width, renderable.build(width).width)
    elif isinstance(renderable, Columns):
        return columns_lines(renderable, console, width)
    elif isinstance(renderable, Table):
        at = max(width, Measurement.get(console, whole, renderable).maximum)
    else:
        at = width
    at = min(at, WIDEST)
    options = console.options.update(width=at, min_width=at, max_width=at, height=None, no_wrap=False)
    return [list(line) for line in console.render_lines(renderable, options, pad=False, new_lines=False)]


def columns_lines(columns: Columns, console: Console, width: int) -> list[Line]:
    """Parts side by side where they fit whole in `width`, else one under
    the other, each drawn for the pane's width (so a title wraps, never cut
    as Rich's Columns cuts a part wider than its column)."""
    parts = list(columns.renderables)
    whole = console.options.update_width(WIDEST)
    widths = [Measurement.get(console, whole, r).maximum for r in parts]
    gap = columns.padding[1] if isinstance(columns.padding, tuple) and len(columns.padding) > 1 else 1
    if sum(widths) + gap * (len(parts) - 1) <= width:
        drawn = [reading_lines(r, console, w) for r, w in zip(parts, widths)]
        height = max(len(d) for d in drawn)
        lines: list[Line] = []
        for y in range(height):
            line: Line = []
            for i, (d, w) in enumerate(zip(drawn, widths)):
                part = d[y] if y < len(d) else []
                line += [*part, Segment(" " * (w - Segment.get_line_length(part) + (gap if i < len(parts) - 1 else 0)))]
            lines.append(line)
        return lines
    return [line for r in parts for line in reading_lines(r, console, width)]


def content(key: object) -> object:
    """What of a figure key is the content, not the pane's width."""
    shown = key[0] if isinstance(key, tuple) else None
    return shown[:-1] if isinstance(shown, tuple) else shown


class LabView(LinesView):
    """The reading pane (its id is #lab-pane; titled by the app)."""

    def figure_key(self, model: AppModel) -> object:
        if model.side_pane != "lab":
            return None
        s = model.session
        return (s.config, s.experiments, s.lens, model.lang, self.content_width())

    def drawable(self) -> bool:
        # Wrapped to its own width: drawn once it has one (or a planned one).
        return self.model is not None and self.model.side_pane == "lab"

    def selection_moved(self, old, new) -> bool:
        return False  # the row is nothing to this pane

    def build(self, model: AppModel) -> Block:
        return TextBlock(reading_lines(self.renderable(model), self.app.console, self.content_width()))

    def frame_size(self, model: AppModel) -> Size:
        assert self.figure is not None
        return Size(self.figure.width, self.figure.height)

    def update_figure(self, old: AppModel | None) -> None:
        before = self._figure_key
        super().update_figure(old)
        if content(before) != content(self._figure_key) and (self.scroll_x or self.scroll_y):
            self.scroll_home(animate=False, immediate=True)  # a new content: read it from its start

    def renderable(self, model: AppModel) -> RenderableType:
        # The experiments and the lens are imported when first shown.
        from maskattn_tui.explore.experiment_runs import run_experiment
        from maskattn_tui.render.experiments import experiment_view
        from maskattn_tui.render.lens import api_lens_view

        palette = self.palette()
        session, lang = model.session, model.lang
        parts: list[RenderableType] = []
        for name in session.experiments:
            if parts:
                parts.append(Text(""))
            parts.append(experiment_view(name, run_experiment(name, session.config), lang, palette))
        if session.lens:
            if parts:
                parts.append(Text(""))
            parts.append(Text(self.tr(t("tui.x.lens_title", lang)), style=palette.style("title")))
            from maskattn_tui.explore.api_lens import model_scores
            from maskattn_tui.explore.view import evaluate

            parts.append(api_lens_view(session.config.table(), "all", lang, palette,
                                       model_scores(evaluate(session.config))))
        return Group(*parts)

    def tr(self, text: str) -> str:
        from maskattn_tui.render.palette import Palette

        return Palette(glyphs=self.glyphs).tr(text)
