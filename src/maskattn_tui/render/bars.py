"""The softmax bar panel: one bar per key for the selected query row, its
probability to 4 decimals, blocked keys at 0 with the reason, the row's
output, and the reminder that these are weights over positions."""

from __future__ import annotations

import math

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from maskattn_tui.render.grid import fmt
from maskattn_tui.render.palette import Palette
from maskattn_tui.lesson.stepview import StepView

DEFAULT_BAR_WIDTH = 20


def bar_cells(p: float, width: int, palette: Palette) -> tuple[str, str]:
    """A bar of p * width cells, with eighth-block precision where the glyph
    set has it: (the bar, the dots that fill the rest of the width). NaN:
    no bar, all dots. Shared by `print`'s bars and the TUI's line-drawn ones."""
    g = palette.glyphs
    if math.isnan(p):
        return "", g.bar_empty * width
    cells = max(0.0, min(1.0, p)) * width
    full = int(cells)
    eighths = int(round((cells - full) * 8))
    if eighths == 8:
        full, eighths = full + 1, 0
    partial = g.bar_partial[eighths - 1] if eighths and full < width else ""
    used = full + (1 if partial else 0)
    return g.bar_full * full + partial, g.bar_empty * (width - used)


def bar_text(p: float, width: int, palette: Palette, style_name: str = "bar") -> Text:
    """A horizontal bar of p * width cells; the rest of the width is dots."""
    bar, rest = bar_cells(p, width, palette)
    text = Text(bar, style=palette.style(style_name))
    text.append(rest, style=palette.style("bar.empty"))
    return text


def _rows_table(
    view: StepView, weights, row: int, lang: str, palette: Palette, width: int, label: str | None,
    unmasked: bool = False, reasons: bool = True,
):
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)  # key
    table.add_column(no_wrap=True)  # glyph
    table.add_column(no_wrap=True)  # bar
    table.add_column(justify="right", no_wrap=True)  # p
    if reasons:
        table.add_column(no_wrap=True)  # reason
    cells = view.table.cells[row]
    for j, pos in enumerate(view.table.key_positions):
        cell = cells[j]
        p = weights[j] if weights is not None else math.nan
        reason = "" if cell.allowed else palette.t(
            f"render.{'leak' if unmasked else 'blocked'}_reason.{cell.value}", lang
        )
        table.add_row(
            Text(f"k{pos}"),
            Text(palette.cell_glyph(cell.value).center(2), style=palette.style(cell.value)),
            bar_text(p, width, palette, "bar" if cell.allowed else "bar.blocked"),
            Text(fmt(p) if weights is not None else "—", style=palette.style("number")),
            *([Text(reason, style=palette.style("dim"))] if reasons else []),
        )
    if label:
        return Group(Text(label, style=palette.style("header")), table)
    return table


def softmax_bars(
    view: StepView, row: int, lang: str, palette: Palette, width: int | None = None, reasons: bool = True,
) -> RenderableType:
    """The bars for query row `row` of the step. Without `reasons` (a narrow
    pane), a blocked key is told by its cell's letter alone (F, P), as in
    the grid and its legend."""
    width = width or DEFAULT_BAR_WIDTH
    row = min(max(0, row), len(view.table.query_positions) - 1)
    result = view.result
    qpos = view.table.query_positions[row]
    parts: list[RenderableType] = [Text(palette.t("render.bars_title", lang, pos=qpos), style=palette.style("title"))]
    weights = result.weights[row]
    if view.compare is not None and row == view.compare.row:
        parts.append(_rows_table(view, view.compare.weights_unmasked, row, lang, palette, width,
                                 palette.t("render.bars_no_mask", lang), unmasked=True, reasons=reasons))
        parts.append(_rows_table(view, weights, row, lang, palette, width, palette.t("render.bars_masked", lang),
                                 reasons=reasons))
    else:
        parts.append(_rows_table(view, weights, row, lang, palette, width, None, reasons=reasons))
    if not view.table.row_has_visible_key(row):
        policy = result.policy
        parts.append(Text(
            palette.t("render.empty_row", lang, policy=policy, result=palette.t(f"render.empty.{policy}", lang)),
            style=palette.style("warning"),
        ))
    output = result.outputs[row]
    if output is not None:
        parts.append(Text(palette.t("render.output", lang, value=", ".join(fmt(x) for x in output)),
                          style=palette.style("number")))
    if view.offset_bug is not None:
        wrong = view.offset_bug.result.outputs[row]
        if wrong is not None and output is not None:
            parts.append(Text(palette.t(
                "render.output_wrong", lang,
                wrong=", ".join(fmt(x) for x in wrong), right=", ".join(fmt(x) for x in output),
            ), style=palette.style("warning")))
    parts.append(Text(palette.t("render.not_confidence", lang), style=palette.style("dim")))
    return Group(*parts)
