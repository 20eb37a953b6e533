"""The pieces every experiment is drawn with, as blocks of lines
(render.blocks): its visibility tables (render.grid_lines' TableBlock,
cells that differ marked "!"), two of them side by side where they fit,
wrapped paragraphs, the legend and the outputs' table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.style import Style

from maskattn_tui.engine.visibility import VisibilityTable
from maskattn_tui.render.blocks import AtWidth, Block, Column, TextBlock, glue, wrap_spans
from maskattn_tui.render.figure_lines import legend_lines, legend_meanings, several_rules
from maskattn_tui.render.grid_lines import SideBySide, TableBlock
from maskattn_tui.render.numbers import fmt
from maskattn_tui.render.palette import Palette
from maskattn_tui.render.table_source import StepTableSource
from maskattn_tui.render.text_columns import columns_block


@dataclass(frozen=True)
class _Spec:
    past: int
    focus_rows: tuple[int, ...] = ()


@dataclass(frozen=True)
class _Frame:
    """What a StepTableSource reads of a StepView: the key headers come
    from `table`, the cache boundary from `spec.past`; no focus row."""

    table: VisibilityTable
    spec: _Spec


def _frame(table: VisibilityTable) -> _Frame:
    # Explore queries sit at past + row, so the first query position is past.
    return _Frame(table, _Spec(past=table.query_positions[0]))


def grid(table: VisibilityTable, title: str, lang: str, palette: Palette, shown: VisibilityTable | None = None,
          differs=None, row_labels=None) -> TableBlock:
    """A visibility table as the grid pane draws it (full cells, no row
    selected), its title wrapped to the table's width."""
    source = StepTableSource(_frame(table), shown or table, differs=differs,
                             row_labels=tuple(row_labels) if row_labels else None)
    return TableBlock(source, palette, lang, -1, TableBlock.full_width(source, palette, lang),
                      title=title, wrap_title=True)


def pair(left: Block, right: Block) -> AtWidth:
    """Two blocks side by side where they fit, else one under the other."""
    def build(width: int) -> Block:
        if left.width + 2 + right.width <= width:  # SideBySide's gap
            return SideBySide(left, right)
        return Column([left, TextBlock([[]]), right])

    return AtWidth(build)


def para(text: str, palette: Palette, style_name: str | None = None) -> AtWidth:
    """A paragraph wrapped to the room."""
    return spans(palette, (text, style_name))


def spans(palette: Palette, *parts: tuple[str, str | None]) -> AtWidth:
    """A paragraph of differently styled parts, wrapped to the room."""
    styled = [(glue(text), palette.style(name) if name else None) for text, name in parts]
    return AtWidth(lambda width: TextBlock(wrap_spans(styled, width)))


def cell_legend(lang: str, palette: Palette, with_diff: bool = True,
                tables: Sequence[VisibilityTable] = ()) -> AtWidth:
    """The glyphs' meanings: causal/PAD always, and each pattern rule `tables` use."""
    return AtWidth(lambda width: TextBlock(legend_lines(
        legend_meanings(*tables), palette, lang, width, 4, with_diff, False, several_rules(*tables), rows=False)))


def short(x: float, palette: Palette) -> str:
    """A number without trailing zeros: 50, 9999, 16.6976."""
    text = fmt(x, 4, palette)
    return text.rstrip("0").rstrip(".") if "." in text else text


def output_text(row: Sequence[float] | None, lang: str, palette: Palette) -> str:
    if row is None:
        return palette.t("render.x.refused", lang)
    return ", ".join(fmt(x, 4, palette) for x in row)


def change_text(delta: float, lang: str, palette: Palette, expected: bool = False) -> tuple[str, Style | None]:
    """`expected`: the row reads the changed values, so a change is no alarm (no "!")."""
    if delta == 0:  # experiments.row_delta gives 0 within TOLERANCE (rounding)
        return palette.t("render.x.unchanged", lang), None
    if expected:
        return palette.t("render.x.changed_expected", lang, delta=fmt(delta, 4, palette)), None
    if delta == float("inf"):
        return palette.t("render.x.changed_any", lang), palette.style("warning")
    return palette.t("render.x.changed", lang, delta=fmt(delta, 4, palette)), palette.style("warning")


def outputs_table(table: VisibilityTable, columns: Sequence[tuple[str, Sequence]], change: Sequence[float],
                  lang: str, palette: Palette) -> AtWidth:
    """One row per query: its outputs under each column, and `change` (the
    largest |difference| between the two, per row) in words; the words
    wrap where the page is narrow."""
    number = palette.style("number")
    rows = [[f"q{pos}", *((output_text(values[r], lang, palette), number) for _, values in columns),
             change_text(change[r], lang, palette)] for r, pos in enumerate(table.query_positions)]
    headers = [palette.t("render.x.row", lang), *(head for head, _ in columns), palette.t("render.x.change", lang)]
    return AtWidth(lambda width: columns_block(headers, rows, palette, title=palette.t("render.x.outputs", lang),
                                               right=range(1, 1 + len(columns)), width=width))
