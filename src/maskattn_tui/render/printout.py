"""`maskattn-tui print`: the figure as text, one step or all five."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from maskattn_tui.render.bars import softmax_bars
from maskattn_tui.render.explain import caption, sections
from maskattn_tui.render.grid import mask_grid
from maskattn_tui.render.palette import Palette
from maskattn_tui.scenario import Figure
from maskattn_tui.stepview import StepView


def step_block(figure: Figure, view: StepView, lang: str, palette: Palette, row: int | None = None) -> RenderableType:
    row = view.spec.focus_rows[0] if row is None else row
    # The counter first: on a narrow page the title is what gets cut.
    head = Text(palette.t("render.step_counter", lang, step=view.step, steps=view.steps), style=palette.style("header"))
    head.append(f" · {palette.pick(figure.title, lang)}", style=palette.style("title"))
    return Group(
        Rule(head, style=palette.style("dim"), characters="=" if palette.ascii else "─"),
        Text(palette.tr(view.text("condition", lang)), style=palette.style("header")),
        Text(""),
        mask_grid(view, row, lang, palette),
        Text(""),
        softmax_bars(view, row, lang, palette),
        Text(""),
        caption(view, lang, palette),
        Text(""),
    )


def print_steps(console: Console, figure: Figure, views: list[StepView], lang: str, palette: Palette,
                with_sections: bool) -> None:
    if with_sections:
        console.print(Text(palette.pick(figure.title, lang), style=palette.style("title")))
        console.print(Text(palette.pick(figure.question, lang)))
        console.print(Text(palette.pick(figure.idea, lang) + "\n"))
    for view in views:
        console.print(step_block(figure, view, lang, palette))
    if with_sections:
        console.print(Rule(palette.t("cli.sections", lang), style=palette.style("dim"),
                           characters="=" if palette.ascii else "─"))
        console.print(sections(figure, lang, palette))
        inputs = Text(palette.t("render.inputs", lang) + ": ", style=palette.style("title"))
        inputs.append(palette.pick(figure.inputs_note, lang))
        console.print(inputs)
