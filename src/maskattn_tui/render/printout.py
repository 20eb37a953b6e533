"""`maskattn-tui print`: the figure as text, one step or all five, or an
explore configuration; with --lens / --experiment, their sections after
each step. Every part is the block the app's pane draws (the figure, the
bars, the caption, the sections), built for the page's width and handed to
Rich as lines: what is printed is what the panes show."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.segment import Segment

from maskattn_tui.lesson.f12 import Figure
from maskattn_tui.lesson.stepview import StepView
from maskattn_tui.render.bar_lines import bar_block
from maskattn_tui.render.blocks import AtWidth, Line, TextBlock, glue, wrap_text
from maskattn_tui.render.explain import captioned, section_lines
from maskattn_tui.render.figure_lines import Room, build_figure
from maskattn_tui.render.palette import Palette

if TYPE_CHECKING:
    from maskattn_tui.explore.experiments import ExperimentResult

# The API lens and the experiments (render.lens, render.experiments and the
# explore modules under them) are imported only when asked for.

BLANK = TextBlock([[]])


def rule(title: Line, palette: Palette) -> AtWidth:
    """A rule across the page with `title` in its middle."""
    char = "=" if palette.ascii else "─"
    dim = palette.style("dim")

    def build(width: int) -> TextBlock:
        room = width - 2
        words = title if sum(cell_len(s.text) for s in title) <= room else wrap_text(
            "".join(s.text for s in title), max(1, room), title[0].style if title else None)[0]
        used = sum(cell_len(s.text) for s in words)
        left = max(0, (width - used - 2) // 2)
        right = max(0, width - used - 2 - left)
        return TextBlock([[Segment(char * left, dim), Segment(" "), *words, Segment(" "), Segment(char * right, dim)]])

    return AtWidth(build)


def step_heading(view: StepView, lang: str, palette: Palette) -> Line:
    """An explore configuration is named by its own title; an F12 step by
    its counter (first: on a narrow page the title is what gets cut) and
    its own title (the figure's title heads the whole page once)."""
    if view.spec.kind == "explore":
        return [Segment(palette.tr(view.text("title", lang)), palette.style("title"))]
    return [Segment(palette.t("render.step_counter", lang, step=view.step, steps=view.steps), palette.style("header")),
            Segment(palette.tr(f" · {view.text('title', lang)}"), palette.style("title"))]


def text_block(text: str, style_name: str | None, palette: Palette) -> AtWidth:
    """A paragraph wrapped to the page (render.wrap's breaks)."""
    style = palette.style(style_name) if style_name else None
    return AtWidth(lambda width: TextBlock(wrap_text(glue(text), width, style)))


def extra_sections(
    view: StepView, lang: str, palette: Palette,
    lens_names: Sequence[str] | None = None,
    experiments: Sequence[tuple[str, ExperimentResult]] = (),
    notice: str | None = None,
) -> list[RenderableType]:
    """The API lens of the step's table and the experiments, each under a rule."""
    parts: list[RenderableType] = []
    if lens_names:
        from maskattn_tui.explore.api_lens import model_scores
        from maskattn_tui.render.lens import api_lens_view

        parts += [rule([Segment(palette.t("render.x.lens.title", lang), palette.style("title"))], palette),
                  api_lens_view(view.table, lens_names, lang, palette, model_scores(view.result)), BLANK]
    if experiments:
        from maskattn_tui.render.experiments import experiment_view

        parts.append(rule([Segment(palette.t("render.x.experiments.title", lang), palette.style("title"))], palette))
        if notice:
            parts.append(text_block(palette.tr(notice), "warning", palette))
        for name, result in experiments:
            parts += [experiment_view(name, result, lang, palette), BLANK]
    return parts


def step_block(view: StepView, lang: str, palette: Palette, views: Sequence[StepView] | None = None,
               row: int | None = None, extras: Sequence[RenderableType] = (),
               tokens: tuple[str, ...] | None = None) -> RenderableType:
    """One step as the app shows it: the condition, the grid pane's figure,
    the weights pane's bars (on the scale of every step of `views`, as in
    the app), the explanation's caption."""
    row = view.spec.focus_rows[0] if row is None else row
    scale = list(views) if views else [view]
    condition = palette.t("tui.condition", lang) + palette.tr(view.text("condition", lang))
    return Group(
        rule(step_heading(view, lang, palette), palette),
        text_block(condition, "header", palette),
        BLANK,
        AtWidth(lambda width: build_figure(view, row, lang, palette, Room(width), tokens=tokens)),
        BLANK,
        AtWidth(lambda width: bar_block(scale, view, row, lang, palette, width)),
        BLANK,
        AtWidth(lambda width: TextBlock(captioned(view, row, lang, palette, width))),
        BLANK,
        *extras,
    )


def print_steps(console: Console, figure: Figure, views: list[StepView], lang: str, palette: Palette,
                with_sections: bool, lens_names: Sequence[str] | None = None,
                experiments: Sequence[tuple[str, ExperimentResult]] = (), notice: str | None = None,
                scale: Sequence[StepView] | None = None, tokens: tuple[str, ...] | None = None) -> None:
    """Each step (grid, bars, caption, then the API lens of its table and
    the experiments, when asked for), framed by the figure's sections. An
    explore configuration ends with the sections alone: its own inputs are
    on its figure (the F12 note is about the F12 steps)."""
    explore = any(v.spec.kind == "explore" for v in views)
    if with_sections:
        for text, style in ((figure.title, "title"), (figure.question, None), (figure.idea, None)):
            console.print(text_block(palette.pick(text, lang), style, palette), crop=False)
        console.print()
    for view in views:
        extras = extra_sections(view, lang, palette, lens_names, experiments, notice)
        console.print(step_block(view, lang, palette, scale or views, extras=extras, tokens=tokens), crop=False)
    if with_sections:
        console.print(rule([Segment(palette.t("cli.sections", lang))], palette), crop=False)
        console.print(AtWidth(lambda width: TextBlock(section_lines(figure, lang, palette, width,
                                                                     inputs=not explore)[1:])), crop=False)
