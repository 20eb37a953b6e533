"""The mask grid: query rows x key columns, one glyph and one colour per
cell, labelled with absolute positions. Step 4 shows the numeric comparison
of one score row; step 5 the correct cache table beside the row-number one."""

from __future__ import annotations

import math

from rich import box as rich_box
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text

from maskattn_tui.render.palette import Palette
from maskattn_tui.render.wrap import Flow
from maskattn_tui.lesson.stepview import StepView
from maskattn_tui.engine.rules import RULE_ORDER
from maskattn_tui.engine.visibility import VisibilityTable

SELECT_MARK = {"unicode": "●", "ascii": "*"}
#: Style meta key on each query row's label: its row index.
ROW_META = "query_row"


def _box(palette: Palette):
    return getattr(rich_box, palette.glyphs.box)


def fmt(x: float, digits: int = 4, palette: Palette | None = None) -> str:
    """Numbers as the screen shows them; -inf spelled out."""
    if x == -math.inf:
        return palette.glyphs.neg_inf if palette else "-inf"
    if math.isnan(x):
        return "NaN"
    return f"{x:.{digits}f}"


def _key_header(view: StepView, j: int, lang: str, palette: Palette) -> Text:
    pos = view.table.key_positions[j]
    label = Text(f"k{pos}", style=palette.style("header"))
    if view.spec.past:
        tag = "render.cached" if pos < view.spec.past else "render.new"
        label.append("\n" + palette.t(tag, lang), style=palette.style("cached" if pos < view.spec.past else "new"))
    if view.table.key_is_pad[j]:
        label.append("\n" + palette.t("render.pad_query", lang), style=palette.style("dim"))
    if view.table.position_ids_differ:
        # The position a rotary embedding uses, where it is not the absolute one.
        pid = view.table.key_position_ids[j]
        label.append("\n" + palette.t("render.pos_id", lang, id=pid), style=palette.style("dim"))
    return label


def visibility_table(
    view: StepView,
    table: VisibilityTable,
    row: int | None,
    lang: str,
    palette: Palette,
    differs=None,
    row_labels: list[str] | None = None,
    title: str | None = None,
) -> Table:
    """One visibility table as a Rich Table."""
    marks = palette.glyphs
    select = SELECT_MARK["ascii" if palette.ascii else "unicode"]
    grid = Table(
        box=_box(palette),
        show_header=True,
        header_style=palette.style("header"),
        pad_edge=False,
        padding=(0, 0),
        title=title,
        title_style=palette.style("title"),
        title_justify="left",
        collapse_padding=True,
    )
    grid.add_column(palette.t("render.queries_axis", lang), justify="left", no_wrap=True)
    for j in range(len(table.key_positions)):
        grid.add_column(_key_header(view, j, lang, palette), justify="center", no_wrap=True, min_width=4)
    focus = set(view.spec.focus_rows)
    for i, qpos in enumerate(table.query_positions):
        label = row_labels[i] if row_labels else f"q{qpos}"
        if table.position_ids_differ and not row_labels:
            label += f" ({table.query_position_ids[i]})"
        prefix = (marks.arrow if i in focus else " ") + (select if i == row else " ")
        # The meta lets a widget map a click on this line back to the row.
        label_style = (palette.style("focus") if i in focus else Style()) + Style(meta={ROW_META: i})
        cells: list[Text] = [Text(f"{prefix} {label} ", style=label_style)]
        for j, cell in enumerate(table.cells[i]):
            glyph = palette.cell_glyph(cell.value)
            mark = "!" if differs is not None and differs[i][j] else ""
            style = palette.style(cell.value)
            if mark:
                style = style + palette.style("diff") if palette.color else style
            cells.append(Text(f"{glyph}{mark}".center(4), style=style))
        grid.add_row(*cells, style=palette.style("selected") if i == row else None)
    return grid


BASE_MEANINGS = ("allowed", "future", "pad", "future+pad")


def legend_meanings(*tables: VisibilityTable) -> tuple[str, ...]:
    """The causal/PAD entries always; each further rule when a table uses it."""
    used = {name for table in tables for row in table.cells for c in row for name in c.reasons}
    return BASE_MEANINGS + tuple(r for r in RULE_ORDER if r in used and r not in ("future", "pad"))


def _several(*tables: VisibilityTable) -> bool:
    """Does a cell name two rules other than the future+PAD the legend shows?"""
    return any(len(c.reasons) > 1 and c.value != "future+pad" for t in tables for row in t.cells for c in row)


def position_ids_line(table: VisibilityTable, lang: str, palette: Palette) -> Text | None:
    """The RoPE positions, when they differ from the absolute ones."""
    if not table.position_ids_differ:
        return None
    join = ",".join
    return Text(palette.t("render.position_ids", lang, queries=join(map(str, table.query_position_ids)),
                          keys=join(map(str, table.key_position_ids))), style=palette.style("dim"))


def legend(view: StepView, lang: str, palette: Palette, with_diff: bool = False) -> Flow:
    """What each glyph means; an entry never splits from its swatch."""
    marks = palette.glyphs
    select = SELECT_MARK["ascii" if palette.ascii else "unicode"]
    entries: list[Text] = []
    for meaning in legend_meanings(view.table):
        entry = Text()
        entry.append(f" {palette.cell_glyph(meaning)} ", style=palette.style(meaning))
        entry.append(" " + palette.t("render.legend." + meaning, lang))
        entries.append(entry)
    if _several(view.table):
        entries.append(Text(palette.t("render.legend.several", lang)))
    entries.append(Text(f"{marks.arrow} {palette.t('render.legend.focus', lang)}"))
    entries.append(Text(f"{select} {palette.t('render.legend.selected', lang)}"))
    if with_diff:
        entries.append(Text(f"! {palette.t('render.legend.diff', lang)}"))
    return Flow(entries)


def _compare_table(view: StepView, lang: str, palette: Palette) -> Table:
    cmp = view.compare
    assert cmp is not None
    table = Table(
        box=_box(palette),
        title=palette.t("render.compare_title", lang),
        title_style=palette.style("title"),
        title_justify="left",
        padding=(0, 1),
        pad_edge=False,
    )
    table.add_column(palette.t("render.key", lang), no_wrap=True)
    for pos in view.table.key_positions:
        table.add_column(f"k{pos}", justify="right", no_wrap=True)
    table.add_column("", justify="left", no_wrap=True)
    cells = view.table.cells[cmp.row]
    table.add_row(
        Text(palette.t("render.cmp.visibility", lang)),
        *[Text(palette.cell_glyph(c.value).center(4), style=palette.style(c.value)) for c in cells],
        "",
    )

    def numbers(values, digits=4):
        return [fmt(x, digits, palette) for x in values]

    total = palette.t("render.cmp.sum", lang)
    out = palette.t("render.cmp.out", lang)
    table.add_row(palette.t("render.cmp.score", lang), *numbers(cmp.scores, 2), "")
    table.add_row(
        palette.t("render.cmp.additive", lang),
        *[("0" if a == 0 else palette.glyphs.neg_inf) for a in cmp.additive],
        "",
    )
    table.add_row(
        palette.t("render.cmp.exp_unmasked", lang), *numbers(cmp.exp_unmasked),
        f"{total} = {fmt(cmp.denominator_unmasked)}",
    )
    table.add_row(
        palette.t("render.cmp.exp_masked", lang), *numbers(cmp.exp_masked),
        Text(f"{total} = {fmt(cmp.denominator_masked)}", style=palette.style("number")),
    )
    table.add_row(
        palette.t("render.cmp.p_unmasked", lang), *numbers(cmp.weights_unmasked),
        f"{out} = {fmt(cmp.output_unmasked[0])}",
    )
    table.add_row(
        palette.t("render.cmp.p_masked", lang), *numbers(cmp.weights_masked),
        Text(f"{out} = {fmt(cmp.output_masked[0])}", style=palette.style("number")),
    )
    return table


def mask_grid(view: StepView, row: int, lang: str, palette: Palette) -> RenderableType:
    """The figure for one step: table(s) and legend."""
    if view.compare is not None:
        cmp = view.compare
        note = Text(
            palette.t("render.cmp.note", lang, masked=fmt(cmp.denominator_masked), unmasked=fmt(cmp.denominator_unmasked)),
            style=palette.style("dim"),
        )
        return Group(
            visibility_table(view, view.table, row, lang, palette),
            _compare_table(view, lang, palette),
            note,
            legend(view, lang, palette),
        )
    if view.offset_bug is not None:
        bug = view.offset_bug
        right = Group(
            Text(palette.t("render.correct_table", lang), style=palette.style("title")),
            visibility_table(view, view.table, row, lang, palette),
        )
        wrong_labels = [
            palette.t("render.row_as", lang, row=i, pos=bug.table.query_positions[i])
            for i in range(len(bug.table.query_positions))
        ]
        wrong = Group(
            Text(palette.t("render.wrong_table", lang), style=palette.style("title")),
            visibility_table(view, bug.table, row, lang, palette, differs=bug.differs, row_labels=wrong_labels),
        )
        return Group(Columns([right, wrong], padding=(0, 2)), legend(view, lang, palette, with_diff=True))
    ids = position_ids_line(view.table, lang, palette)
    return Group(visibility_table(view, view.table, row, lang, palette), *([ids] if ids else []),
                 legend(view, lang, palette))
