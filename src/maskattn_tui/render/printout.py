"""`maskattn-tui print`: the figure as text, one step or all five, or an
explore configuration; with --lens / --experiment, their sections after
each step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from maskattn_tui.render.bars import softmax_bars
from maskattn_tui.render.explain import caption, sections
from maskattn_tui.render.grid import mask_grid
from maskattn_tui.render.wrap import Paragraph
from maskattn_tui.render.palette import Palette
from maskattn_tui.lesson.f12 import Figure
from maskattn_tui.lesson.stepview import StepView

if TYPE_CHECKING:
    from maskattn_tui.explore.experiments import ExperimentResult

# The API lens and the experiments (render.lens, render.experiments and the
# explore modules under them) are imported only when asked for.


def _rule(title: Text, palette: Palette) -> Rule:
    return Rule(title, style=palette.style("dim"), characters="=" if palette.ascii else "─")


def step_heading(figure: Figure, view: StepView, lang: str, palette: Palette) -> Text:
    """An explore configuration is named by its own title; an F12 step by
    its counter (first: on a narrow page the title is what gets cut) and
    its own title (the figure's title heads the whole page once)."""
    if view.spec.kind == "explore":
        return Text(palette.tr(view.text("title", lang)), style=palette.style("title"))
    head = Text(palette.t("render.step_counter", lang, step=view.step, steps=view.steps), style=palette.style("header"))
    head.append(palette.tr(f" · {view.text('title', lang)}"), style=palette.style("title"))
    return head


def extra_sections(
    view: StepView, lang: str, palette: Palette,
    lens_names: Sequence[str] | None = None,
    experiments: Sequence[tuple[str, ExperimentResult]] = (),
    notice: str | None = None,
) -> list[RenderableType]:
    """The API lens of the step's table and the experiments, each under a rule."""
    parts: list[RenderableType] = []
    if lens_names:
        from maskattn_tui.render.lens import api_lens_view

        parts += [_rule(Text(palette.t("render.x.lens.title", lang), style=palette.style("title")), palette),
                  api_lens_view(view.table, lens_names, lang, palette), Text("")]
    if experiments:
        from maskattn_tui.render.experiments import experiment_view

        parts.append(_rule(Text(palette.t("render.x.experiments.title", lang), style=palette.style("title")), palette))
        if notice:
            parts.append(Text(palette.tr(notice), style=palette.style("warning")))
        for name, result in experiments:
            parts += [experiment_view(name, result, lang, palette), Text("")]
    return parts


def step_block(figure: Figure, view: StepView, lang: str, palette: Palette, row: int | None = None,
               extras: Sequence[RenderableType] = ()) -> RenderableType:
    row = view.spec.focus_rows[0] if row is None else row
    return Group(
        _rule(step_heading(figure, view, lang, palette), palette),
        Text(palette.tr(view.text("condition", lang)), style=palette.style("header")),
        Text(""),
        mask_grid(view, row, lang, palette),
        Text(""),
        softmax_bars(view, row, lang, palette),
        Text(""),
        caption(view, lang, palette),
        Text(""),
        *extras,
    )


def print_steps(console: Console, figure: Figure, views: list[StepView], lang: str, palette: Palette,
                with_sections: bool, lens_names: Sequence[str] | None = None,
                experiments: Sequence[tuple[str, ExperimentResult]] = (), notice: str | None = None) -> None:
    """Each step (grid, bars, caption, then the API lens of its table and
    the experiments, when asked for), framed by the figure's sections."""
    if with_sections:
        console.print(Paragraph(Text(palette.pick(figure.title, lang), style=palette.style("title"))))
        console.print(Paragraph(Text(palette.pick(figure.question, lang))))
        console.print(Paragraph(Text(palette.pick(figure.idea, lang))))
        console.print()
    for view in views:
        extras = extra_sections(view, lang, palette, lens_names, experiments, notice)
        console.print(step_block(figure, view, lang, palette, extras=extras))
    if with_sections:
        console.print(_rule(Text(palette.t("cli.sections", lang)), palette))
        console.print(sections(figure, lang, palette))
        inputs = Text(palette.t("render.inputs", lang), style=palette.style("title"))
        inputs.append(palette.pick(figure.inputs_note, lang))
        console.print(inputs)
