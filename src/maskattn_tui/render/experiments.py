"""The chapter's experiments as blocks of lines (render.blocks): the tables
side by side (render.grid_lines' TableBlock, cells that differ marked "!"),
the outputs before and after, and one line per claim, wrapped to the room.
The numbers come from explore.experiments; this module only draws."""

from __future__ import annotations

from rich.console import Group, RenderableType

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
from maskattn_tui.render.blocks import AtWidth
from maskattn_tui.render.experiment_parts import (
    cell_legend, change_text, grid, output_text, outputs_table, pair, para, short, spans,
)
from maskattn_tui.render.lens import cells_by_row, keys_text, rows_text, visibility_matrix
from maskattn_tui.render.matrix import MARK, side_by_side
from maskattn_tui.render.palette import Palette
from maskattn_tui.render.pattern_experiments import pattern_mistake_view
from maskattn_tui.render.text_columns import columns_block


def _head(name: str, lang: str, palette: Palette) -> list[RenderableType]:
    return [para(palette.t(f"explore.experiment.{name}.title", lang), palette, "title"),
            para(palette.t(f"explore.experiment.{name}.claim", lang), palette, "dim")]


# --- each experiment -------------------------------------------------------------


def _leak_probe(res: LeakProbeResult, lang: str, palette: Palette) -> list[RenderableType]:
    table = res.correct
    nothing = nothing_to_show(res, lang)
    if nothing is not None:
        return [para(palette.tr(nothing), palette)]
    value = short(res.value, palette)
    keys = keys_text(res.probe_keys, lang, palette)
    changes = palette.t("explore.list_sep", lang).join(
        palette.t("render.x.leak.v_was", lang, pos=j, before=", ".join(short(x, palette) for x in res.v[j]),
                  after=", ".join(short(x, palette) for x in res.v_probe[j]))
        for j in res.probe_keys if res.v[j] != res.v_probe[j])
    probe = spans(palette, (palette.t("render.x.leak.probe", lang, keys=keys, value=value), "header"),
                  ("  " + changes, "number"))
    grids = pair(
        grid(table, palette.t("render.x.leak.correct_table", lang), lang, palette),
        grid(table, palette.t(f"render.x.leak.broken.{res.broken}", lang), lang, palette,
              shown=res.broken_table, differs=table.differs_from(res.broken_table)))
    headers = [palette.t(head, lang, value=value) for head in (
        "render.x.row", "render.x.leak.mask", "render.x.leak.before", "render.x.leak.after", "render.x.change")]
    number = palette.style("number")
    rows, groups = [], []
    for r, pos in enumerate(table.query_positions):
        label = f"q{pos}"
        if r in res.guarded_rows:
            label = palette.t("render.x.leak.row_guarded", lang, row=label)
        else:
            seen = [j for j in res.probe_keys if table.cells[r][table.key_positions.index(j)].allowed]
            label = palette.t("render.x.leak.row_reads", lang, row=label, keys=keys_text(seen, lang, palette))
        groups.append(len(rows))
        for which, before, after, delta in (
            ("correct", res.correct_before, res.correct_after, res.correct_change[r]),
            ("broken", res.broken_before, res.broken_after, res.broken_change[r]),
        ):
            rows.append([label if which == "correct" else "", palette.t(f"render.x.leak.{which}", lang),
                         (output_text(before.outputs[r], lang, palette), number),
                         (output_text(after.outputs[r], lang, palette), number),
                         change_text(delta, lang, palette, expected=res.change_expected(which, r))])
    outputs = AtWidth(lambda width: columns_block(headers, rows, palette, title=palette.t("render.x.outputs", lang),
                                                  right=(2, 3), groups=groups, width=width))
    verdict: list[RenderableType] = []
    if res.correct_unchanged:
        verdict.append(para(f"{palette.glyphs.allowed} " + palette.t("render.x.leak.verdict_ok", lang,
                                                                      tol=f"{TOLERANCE:.1e}"), palette, "header"))
    else:
        verdict.append(para(f"{MARK} " + palette.t("render.x.leak.verdict_uniform", lang,
                                                    rows=rows_text(table, res.empty_leak_rows, lang, palette)),
                            palette, "warning"))
    if res.leak_rows:
        verdict.append(para(f"{MARK} " + palette.t("render.x.leak.verdict_leak", lang,
                                                    rows=rows_text(table, res.leak_rows, lang, palette)),
                            palette, "warning"))
    else:
        verdict.append(para(palette.t("render.x.leak.verdict_no_leak", lang), palette))
    verdict.append(para(palette.t("render.x.leak.verdict_changed", lang,
                                  rows=rows_text(table, res.changed_rows, lang, palette)), palette))
    return [probe, grids, cell_legend(lang, palette, tables=(res.correct, res.broken_table)), outputs, *verdict]


def _offset_bug(res: OffsetBugResult, lang: str, palette: Palette) -> list[RenderableType]:
    table = res.correct
    labels = [palette.t("render.row_as", lang, row=i, pos=p) for i, p in enumerate(res.wrong.query_positions)]
    grids = pair(
        grid(table, palette.t("render.x.offset.correct_table", lang), lang, palette),
        grid(table, palette.t("render.x.offset.wrong_table", lang), lang, palette, shown=res.wrong,
              differs=res.differs, row_labels=labels))
    idx = {p: i for i, p in enumerate(table.key_positions)}
    nothing = nothing_to_show(res, lang)
    if nothing is not None:
        lines = [para(palette.tr(nothing), palette)]
    else:
        lines = [para(palette.t("render.x.differing", lang, count=len(res.differing_cells)), palette, "header"),
                 para(palette.t("render.x.offset.hidden", lang, cells=cells_by_row(
                     table, [(r, idx[k]) for r, k in res.hidden], lang, palette)), palette, "warning")]
    lines.extend(_exposed(res, idx, lang, palette))
    outputs = outputs_table(table, [
        (palette.t("render.x.offset.correct", lang), res.correct_result.outputs),
        (palette.t("render.x.offset.wrong", lang), res.wrong_result.outputs),
    ], res.output_change, lang, palette)
    return [grids, cell_legend(lang, palette, tables=(res.correct, res.wrong)), *lines, outputs]


def _exposed(res: OffsetBugResult, idx: dict[int, int], lang: str, palette: Palette) -> list[RenderableType]:
    """The cells the wrong table exposes, one line per rule that hides them
    in the correct one: "future" only for keys after the query's position;
    the others (earlier keys a window, chunk, document... hides) by name."""
    groups: dict[str, list[tuple[int, int]]] = {}
    for (r, k), because in zip(res.exposed, res.exposed_by):
        rules = "future" if "future" in because.split("+") else because
        groups.setdefault(rules, []).append((r, idx[k]))
    lines = []
    for rules, cells in sorted(groups.items(), key=lambda item: item[0] != "future"):
        where = cells_by_row(res.correct, cells, lang, palette)
        if rules == "future":
            text = palette.t("render.x.offset.exposed", lang, cells=where)
        else:
            text = palette.t("render.x.offset.exposed_rule", lang, cells=where, rules=palette.reason_names(rules, lang))
        lines.append(para(text, palette, "warning"))
    return lines


def _polarity_bug(res: PolarityBugResult, lang: str, palette: Palette) -> list[RenderableType]:
    table = res.intended
    intended = [[c.allowed for c in row] for row in table.cells]
    mats = side_by_side([
        visibility_matrix(table, intended, palette.t("render.x.polarity.intended", lang), palette, mark_diffs=False),
        visibility_matrix(table, res.effective, palette.t("render.x.polarity.effective", lang), palette),
    ])
    idx = {p: i for i, p in enumerate(table.key_positions)}

    def where(cells):
        return cells_by_row(table, [(r, idx[k]) for r, k in cells], lang, palette)

    lines = [para(palette.t("render.x.polarity.future_visible", lang, cells=where(res.future_visible)),
                  palette, "warning")]
    if res.pad_visible:
        lines.append(para(palette.t("render.x.polarity.pad_visible", lang, cells=where(res.pad_visible)),
                          palette, "warning"))
    lines.append(para(palette.t("render.x.polarity.hidden", lang, cells=where(res.hidden)), palette, "warning"))
    if res.empty_rows:
        policy = res.inverted_result.policy
        rows = rows_text(table, res.empty_rows, lang, palette)
        lines.append(para(palette.t("render.x.polarity.empty", lang, rows=rows, policy=policy,
                                    result=palette.t(f"render.empty.{policy}", lang)), palette, "warning"))
    outputs = outputs_table(table, [
        (palette.t("render.x.polarity.correct", lang), res.correct_result.outputs),
        (palette.t("render.x.polarity.inverted", lang), res.inverted_result.outputs),
    ], res.output_change, lang, palette)
    legend = para(palette.t("render.x.polarity.legend", lang), palette, "dim")
    return [legend, mats, *lines, outputs]


def _causal_off(res: CausalOffResult, lang: str, palette: Palette) -> list[RenderableType]:
    table = res.causal
    grids = pair(
        grid(table, palette.t("render.x.causal_off.on", lang), lang, palette),
        grid(table, palette.t("render.x.causal_off.off", lang), lang, palette, shown=res.off,
              differs=table.differs_from(res.off)))
    idx = {p: i for i, p in enumerate(table.key_positions)}
    newly = cells_by_row(table, [(r, idx[k]) for r, k in res.newly_visible], lang, palette)
    outputs = outputs_table(table, [
        (palette.t("render.x.causal_off.output_on", lang), res.causal_result.outputs),
        (palette.t("render.x.causal_off.output_off", lang), res.off_result.outputs),
    ], res.output_change, lang, palette)
    nothing = nothing_to_show(res, lang)
    line = para(palette.tr(nothing), palette) if nothing is not None else \
        para(palette.t("render.x.causal_off.newly", lang, cells=newly), palette, "warning")
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
    return Group(*_head(name, lang, palette), *body)

