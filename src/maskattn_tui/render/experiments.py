"""The chapter's experiments as Rich renderables: the tables side by side
(reusing the grid's visibility_table, cells that differ marked "!"), the
outputs before and after, and one line per claim. The numbers come from
explore.experiments; this module only draws."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich import box as rich_box
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from maskattn_tui.explore.experiments import (
    TOLERANCE,
    CausalOffResult,
    ExperimentResult,
    LeakProbeResult,
    OffsetBugResult,
    PolarityBugResult,
)
from maskattn_tui.explore.pattern_experiments import TableMistake
from maskattn_tui.explore.verdicts import nothing_to_show
from maskattn_tui.render.grid import fmt, legend_meanings, visibility_table
from maskattn_tui.render.lens import cells_by_row, keys_text, rows_text, visibility_matrix
from maskattn_tui.render.matrix import MARK
from maskattn_tui.render.palette import Palette
from maskattn_tui.engine.visibility import VisibilityTable


@dataclass(frozen=True)
class _Spec:
    past: int
    focus_rows: tuple[int, ...] = ()


@dataclass(frozen=True)
class _Frame:
    """What visibility_table reads from a StepView: the key headers come
    from `table`, the cache boundary from `spec.past`; no focus row."""

    table: VisibilityTable
    spec: _Spec


def _frame(table: VisibilityTable) -> _Frame:
    # Explore queries sit at past + row, so the first query position is past.
    return _Frame(table, _Spec(past=table.query_positions[0]))


def _grid(table: VisibilityTable, title: str, lang: str, palette: Palette, shown: VisibilityTable | None = None,
          differs=None, row_labels=None) -> Table:
    return visibility_table(_frame(table), shown or table, None, lang, palette, differs=differs,
                            row_labels=row_labels, title=title)


def cell_legend(lang: str, palette: Palette, with_diff: bool = True, tables: Sequence[VisibilityTable] = ()) -> RenderableType:
    """The glyphs' meanings: causal/PAD always, and each pattern rule `tables` use."""
    text = Text()
    for meaning in legend_meanings(*tables):
        text.append(f" {palette.cell_glyph(meaning)} ", style=palette.style(meaning))
        text.append(f" {palette.t('render.legend.' + meaning, lang)}  ")
    text.rstrip()
    if not with_diff:
        return text
    return Group(text, Text(palette.t("render.x.legend_diff", lang, mark=MARK)))


def short(x: float, palette: Palette) -> str:
    """A number without trailing zeros: 50, 9999, 16.6976."""
    text = fmt(x, 4, palette)
    return text.rstrip("0").rstrip(".") if "." in text else text


def _out(row: Sequence[float] | None, lang: str, palette: Palette) -> str:
    if row is None:
        return palette.t("render.x.refused", lang)
    return ", ".join(fmt(x, 4, palette) for x in row)


def change_text(delta: float, lang: str, palette: Palette) -> Text:
    if delta == 0:  # experiments.row_delta gives 0 within TOLERANCE (rounding)
        return Text(palette.t("render.x.unchanged", lang))
    if delta == float("inf"):
        return Text(palette.t("render.x.changed_any", lang), style=palette.style("warning"))
    return Text(palette.t("render.x.changed", lang, delta=fmt(delta, 4, palette)), style=palette.style("warning"))


def _table(palette: Palette, title: str | None = None) -> Table:
    return Table(box=getattr(rich_box, palette.glyphs.box), title=title, title_style=palette.style("title"),
                 title_justify="left", padding=(0, 1), header_style=palette.style("header"))


def outputs_table(table: VisibilityTable, columns: Sequence[tuple[str, Sequence]], change: Sequence[float],
                  lang: str, palette: Palette) -> Table:
    """One row per query: its outputs under each column, and `change` (the
    largest |difference| between the two, per row) in words."""
    out = _table(palette, palette.t("render.x.outputs", lang))
    out.add_column(palette.t("render.x.row", lang), no_wrap=True)
    for head, _ in columns:
        out.add_column(head, justify="right", no_wrap=True)
    out.add_column(palette.t("render.x.change", lang), no_wrap=True)
    for r, pos in enumerate(table.query_positions):
        cells: list = [f"q{pos}"]
        cells += [Text(_out(values[r], lang, palette), style=palette.style("number")) for _, values in columns]
        cells.append(change_text(change[r], lang, palette))
        out.add_row(*cells)
    return out


def _head(name: str, lang: str, palette: Palette) -> Group:
    return Group(
        Text(palette.t(f"explore.experiment.{name}.title", lang), style=palette.style("title")),
        Text(palette.t(f"explore.experiment.{name}.claim", lang), style=palette.style("dim")),
    )


# --- each experiment -------------------------------------------------------------


def _leak_probe(res: LeakProbeResult, lang: str, palette: Palette) -> list[RenderableType]:
    table = res.correct
    nothing = nothing_to_show(res, lang)
    if nothing is not None:
        return [Text(palette.tr(nothing))]
    value = short(res.value, palette)
    keys = keys_text(res.probe_keys, lang, palette)
    probe = Text(palette.t("render.x.leak.probe", lang, keys=keys, value=value), style=palette.style("header"))
    changes = Text("  ")
    changes.append(palette.t("explore.list_sep", lang).join(
        palette.t("render.x.leak.v_was", lang, pos=j, before=", ".join(short(x, palette) for x in res.v[j]),
                  after=", ".join(short(x, palette) for x in res.v_probe[j]))
        for j in res.probe_keys if res.v[j] != res.v_probe[j]), style=palette.style("number"))
    probe.append_text(changes)
    grids = Columns([
        _grid(table, palette.t("render.x.leak.correct_table", lang), lang, palette),
        _grid(table, palette.t(f"render.x.leak.broken.{res.broken}", lang), lang, palette,
              shown=res.broken_table, differs=table.differs_from(res.broken_table)),
    ], padding=(0, 2))
    outputs = _table(palette, palette.t("render.x.outputs", lang))
    for head, justify in (("render.x.row", "left"), ("render.x.leak.mask", "left"), ("render.x.leak.before", "right"),
                          ("render.x.leak.after", "right"), ("render.x.change", "left")):
        outputs.add_column(palette.t(head, lang, value=value), justify=justify, no_wrap=True)
    for r, pos in enumerate(table.query_positions):
        label = f"q{pos}"
        if r in res.guarded_rows:
            label = palette.t("render.x.leak.row_guarded", lang, row=label)
        else:
            seen = [j for j in res.probe_keys if table.cells[r][table.key_positions.index(j)].allowed]
            label = palette.t("render.x.leak.row_reads", lang, row=label, keys=keys_text(seen, lang, palette))
        for which, before, after, delta in (
            ("correct", res.correct_before, res.correct_after, res.correct_change[r]),
            ("broken", res.broken_before, res.broken_after, res.broken_change[r]),
        ):
            outputs.add_row(
                label if which == "correct" else "",
                palette.t(f"render.x.leak.{which}", lang),
                Text(_out(before.outputs[r], lang, palette), style=palette.style("number")),
                Text(_out(after.outputs[r], lang, palette), style=palette.style("number")),
                change_text(delta, lang, palette),
                end_section=which == "broken",
            )
    verdict: list[RenderableType] = []
    if res.correct_unchanged:
        verdict.append(Text(f"{palette.glyphs.allowed} " + palette.t("render.x.leak.verdict_ok", lang,
                                                                      tol=f"{TOLERANCE:.1e}"),
                            style=palette.style("header")))
    else:
        verdict.append(Text(f"{MARK} " + palette.t("render.x.leak.verdict_uniform", lang,
                                                    rows=rows_text(table, res.empty_leak_rows, lang, palette)),
                            style=palette.style("warning")))
    if res.leak_rows:
        verdict.append(Text(f"{MARK} " + palette.t("render.x.leak.verdict_leak", lang,
                                                    rows=rows_text(table, res.leak_rows, lang, palette)),
                            style=palette.style("warning")))
    else:
        verdict.append(Text(palette.t("render.x.leak.verdict_no_leak", lang)))
    verdict.append(Text(palette.t("render.x.leak.verdict_changed", lang,
                                  rows=rows_text(table, res.changed_rows, lang, palette))))
    return [probe, grids, cell_legend(lang, palette, tables=(res.correct, res.broken_table)), outputs, *verdict]


def _offset_bug(res: OffsetBugResult, lang: str, palette: Palette) -> list[RenderableType]:
    table = res.correct
    labels = [palette.t("render.row_as", lang, row=i, pos=p) for i, p in enumerate(res.wrong.query_positions)]
    grids = Columns([
        _grid(table, palette.t("render.x.offset.correct_table", lang), lang, palette),
        _grid(table, palette.t("render.x.offset.wrong_table", lang), lang, palette, shown=res.wrong,
              differs=res.differs, row_labels=labels),
    ], padding=(0, 2))
    idx = {p: i for i, p in enumerate(table.key_positions)}
    nothing = nothing_to_show(res, lang)
    if nothing is not None:
        lines = [Text(palette.tr(nothing))]
    else:
        lines = [Text(palette.t("render.x.differing", lang, count=len(res.differing_cells)),
                      style=palette.style("header")),
                 Text(palette.t("render.x.offset.hidden", lang, cells=cells_by_row(
                     table, [(r, idx[k]) for r, k in res.hidden], lang, palette)), style=palette.style("warning"))]
    if res.exposed:
        lines.append(Text(palette.t("render.x.offset.exposed", lang, cells=cells_by_row(
            table, [(r, idx[k]) for r, k in res.exposed], lang, palette)), style=palette.style("warning")))
    outputs = outputs_table(table, [
        (palette.t("render.x.offset.correct", lang), res.correct_result.outputs),
        (palette.t("render.x.offset.wrong", lang), res.wrong_result.outputs),
    ], res.output_change, lang, palette)
    return [grids, cell_legend(lang, palette, tables=(res.correct, res.wrong)), *lines, outputs]


def _polarity_bug(res: PolarityBugResult, lang: str, palette: Palette) -> list[RenderableType]:
    table = res.intended
    intended = [[c.allowed for c in row] for row in table.cells]
    mats = Columns([
        visibility_matrix(table, intended, palette.t("render.x.polarity.intended", lang), palette, mark_diffs=False),
        visibility_matrix(table, res.effective, palette.t("render.x.polarity.effective", lang), palette),
    ], padding=(0, 4))
    idx = {p: i for i, p in enumerate(table.key_positions)}

    def where(cells):
        return cells_by_row(table, [(r, idx[k]) for r, k in cells], lang, palette)

    lines = [
        Text(palette.t("render.x.polarity.future_visible", lang, cells=where(res.future_visible)),
             style=palette.style("warning")),
    ]
    if res.pad_visible:
        lines.append(Text(palette.t("render.x.polarity.pad_visible", lang, cells=where(res.pad_visible)),
                          style=palette.style("warning")))
    lines.append(Text(palette.t("render.x.polarity.hidden", lang, cells=where(res.hidden)),
                      style=palette.style("warning")))
    if res.empty_rows:
        policy = res.inverted_result.policy
        lines.append(Text(palette.t("render.x.polarity.empty", lang, rows=rows_text(table, res.empty_rows, lang, palette),
                                    policy=policy, result=palette.t(f"render.empty.{policy}", lang)),
                          style=palette.style("warning")))
    outputs = outputs_table(table, [
        (palette.t("render.x.polarity.correct", lang), res.correct_result.outputs),
        (palette.t("render.x.polarity.inverted", lang), res.inverted_result.outputs),
    ], res.output_change, lang, palette)
    legend = Text(palette.t("render.x.polarity.legend", lang), style=palette.style("dim"))
    return [legend, mats, *lines, outputs]


def _causal_off(res: CausalOffResult, lang: str, palette: Palette) -> list[RenderableType]:
    table = res.causal
    grids = Columns([
        _grid(table, palette.t("render.x.causal_off.on", lang), lang, palette),
        _grid(table, palette.t("render.x.causal_off.off", lang), lang, palette, shown=res.off,
              differs=table.differs_from(res.off)),
    ], padding=(0, 2))
    idx = {p: i for i, p in enumerate(table.key_positions)}
    newly = cells_by_row(table, [(r, idx[k]) for r, k in res.newly_visible], lang, palette)
    outputs = outputs_table(table, [
        (palette.t("render.x.causal_off.output_on", lang), res.causal_result.outputs),
        (palette.t("render.x.causal_off.output_off", lang), res.off_result.outputs),
    ], res.output_change, lang, palette)
    nothing = nothing_to_show(res, lang)
    line = Text(palette.tr(nothing)) if nothing is not None else \
        Text(palette.t("render.x.causal_off.newly", lang, cells=newly), style=palette.style("warning"))
    return [grids, cell_legend(lang, palette, tables=(res.causal, res.off)), line, outputs]


_VIEWS = {
    LeakProbeResult: _leak_probe,
    OffsetBugResult: _offset_bug,
    PolarityBugResult: _polarity_bug,
    CausalOffResult: _causal_off,
}


def experiment_view(name: str, result: ExperimentResult, lang: str, palette: Palette) -> RenderableType:
    """One experiment (`name` from explore.experiments.EXPERIMENTS) and its result."""
    if isinstance(result, TableMistake):
        body = pattern_mistake_view(result, lang, palette)
    else:
        body = _VIEWS[type(result)](result, lang, palette)
    return Group(_head(name, lang, palette), *body)


from maskattn_tui.render.pattern_experiments import pattern_mistake_view  # noqa: E402 - it imports _grid from here
