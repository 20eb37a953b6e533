"""The mask patterns' classic mistakes (explore.pattern_experiments) as
blocks of lines: the correct table beside the mistaken one (cells that
differ marked "!"), what leaks or hides, and the outputs before and after."""

from __future__ import annotations

from rich.console import RenderableType

from maskattn_tui.explore.pattern_experiments import (
    ChunkHistoryResult,
    PositionsOnlyResult,
    TableMistake,
    WindowOffByOneResult,
)
from maskattn_tui.explore.verdicts import nothing_to_show
from maskattn_tui.render.experiment_parts import cell_legend, grid, outputs_table, pair, para
from maskattn_tui.render.figure_lines import position_ids_text
from maskattn_tui.render.lens import cells_by_row
from maskattn_tui.render.palette import Palette

PREFIX = {WindowOffByOneResult: "window", PositionsOnlyResult: "positions", ChunkHistoryResult: "history"}


def _numbers(values) -> str:
    return ", ".join(str(v) for v in values)


def _facts(res: TableMistake, lang: str, palette: Palette) -> list[RenderableType]:
    kind = PREFIX[type(res)]
    out: list[RenderableType] = []
    if isinstance(res, WindowOffByOneResult):
        if res.assumed:
            out.append(para(palette.t("render.x.window.assumed", lang, w=res.window), palette, "dim"))
        out.append(para(palette.t("render.x.window.keys", lang, w=res.window, right=_numbers(res.keys_correct),
                                  wrong=_numbers(res.keys_wrong)), palette, "header"))
    elif isinstance(res, PositionsOnlyResult):
        if res.assumed:
            out.append(para(palette.t("render.x.positions.assumed", lang, lengths=_numbers(res.documents)),
                            palette, "dim"))
        ids = position_ids_text(res.correct, lang, palette)
        if ids is not None:
            out.append(para(ids, palette, "dim"))
    elif isinstance(res, ChunkHistoryResult):
        key = "render.x.history.none" if res.past == 0 else "render.x.history.hidden_count"
        out.append(para(palette.t(key, lang, past=res.past, counts=_numbers(res.history_hidden)), palette, "header"))
        if res.chunk_origin != res.wrong_chunk_origin:
            out.append(para(palette.t("render.x.history.moved", lang, zeros=res.wrong_chunk_origin,
                                      wrong=res.wrong_chunk_origin, right=res.chunk_origin), palette, "header"))
    idx = {p: i for i, p in enumerate(res.correct.key_positions)}

    def where(cells):
        return cells_by_row(res.correct, [(r, idx[k]) for r, k in cells], lang, palette)

    hidden, own = res.hidden, ()
    if isinstance(res, ChunkHistoryResult):  # the cache's keys are history; the others moved chunks hid
        hidden = tuple((r, k) for r, k in res.hidden if k < res.past)
        own = tuple((r, k) for r, k in res.hidden if k >= res.past)
    if res.exposed:
        out.append(para(palette.t(f"render.x.{kind}.exposed", lang, cells=where(res.exposed)), palette, "warning"))
    if hidden:
        out.append(para(palette.t(f"render.x.{kind}.hidden", lang, cells=where(hidden)), palette, "warning"))
    if own:
        out.append(para(palette.t("render.x.history.hidden_own", lang, cells=where(own)), palette, "warning"))
    if not res.exposed and not res.hidden and not (isinstance(res, ChunkHistoryResult) and res.past == 0):
        out.append(para(palette.tr(nothing_to_show(res, lang)), palette))  # the JSON's nothing_to_show
    return out


def pattern_mistake_view(res: TableMistake, lang: str, palette: Palette) -> list[RenderableType]:
    kind = PREFIX[type(res)]
    grids = pair(
        grid(res.correct, palette.t(f"render.x.{kind}.correct_table", lang), lang, palette),
        grid(res.correct, palette.t(f"render.x.{kind}.wrong_table", lang), lang, palette, shown=res.wrong,
              differs=res.differs))
    outputs = outputs_table(res.correct, [
        (palette.t(f"render.x.{kind}.correct", lang), res.correct_result.outputs),
        (palette.t(f"render.x.{kind}.wrong", lang), res.wrong_result.outputs),
    ], res.output_change, lang, palette)
    legend = cell_legend(lang, palette, with_diff=True, tables=(res.correct, res.wrong))
    diff = para(palette.t("render.x.differing", lang, count=sum(map(sum, res.differs))), palette, "header")
    return [grids, legend, diff, *_facts(res, lang, palette), outputs]
