"""One step's figure as blocks of lines (render.grid_lines), for the TUI's
grid pane and `print`: the visibility table(s), step 4's score row with
every number, the legend and the declared inputs. Sizes come from
arithmetic, so the widget can ask every step's size without drawing any."""

from __future__ import annotations

from collections.abc import Iterator, Set
from dataclasses import dataclass
from functools import lru_cache

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment

from maskattn_tui.engine.rules import RULE_ORDER
from maskattn_tui.engine.visibility import VisibilityTable
from maskattn_tui.i18n import t
from maskattn_tui.lesson.stepview import StepView
from maskattn_tui.render.grid_lines import (
    DIFF_MARK, FULL_CELL_MIN, SELECT_MARK, SEVERAL_GLYPH, Block, Column, Line, SideBySide, TableBlock, TextBlock,
    cell_glyph, flow, glue, table_scan, wrap_text,
)
from maskattn_tui.render.numbers import fmt
from maskattn_tui.render.palette import Palette
from maskattn_tui.render.table_source import StepTableSource, TableSource, with_labels

#: The legend's and inputs' narrowest wrapping width.
LEGEND_MIN = 44
#: Input matrices longer than this are shown by their first rows.
INPUT_ROWS_SHOWN = 6


@dataclass(frozen=True)
class Room:
    """Where the figure is drawn: columns, and lines it should fit in."""

    width: int
    height: int = 10**6


BASE_MEANINGS = ("allowed", "future", "pad", "future+pad")


def legend_meanings(*tables: VisibilityTable) -> tuple[str, ...]:
    """The causal/PAD entries always; each further rule when a table uses it."""
    used = {name for table in tables for value in table.values for name in value.split("+")}
    return BASE_MEANINGS + tuple(r for r in RULE_ORDER if r in used and r not in ("future", "pad"))


def drawn_meanings(meanings: tuple[str, ...], values: Set[str]) -> tuple[str, ...]:
    """The entries of `meanings` whose glyph a cell of one of `values` draws
    (a tight legend): a cell's own value, and each rule of a cell that shows
    several rules' letters."""
    used = set(values) | {name for v in values if "+" in v and v != "future+pad" for name in v.split("+")}
    return tuple(m for m in meanings if m in used)


def several_rules(*tables: VisibilityTable) -> bool:
    """Does a cell name two rules other than the future+PAD the legend shows?"""
    return any("+" in v and v != "future+pad" for t in tables for v in t.values)


def position_ids_text(table: VisibilityTable, lang: str, palette: Palette) -> str | None:
    """The RoPE positions, when they differ from the absolute ones."""
    if not table.position_ids_differ:
        return None
    join = ",".join
    return palette.t("render.position_ids", lang, queries=join(map(str, table.query_position_ids)),
                     keys=join(map(str, table.key_position_ids)))


def legend_lines(reasons, palette: Palette, lang: str, width: int, cw: int,
                 diff: bool, pad_rows: bool, several: bool = False, rows: bool = True) -> list[Line]:
    """The legend's entries, wrapped between entries; `rows`: the focus and
    selected-row marks too (a table with no focus row has neither)."""
    entries: list[Line] = []
    swatch_w = 1 if cw == 1 else 3
    compact = cw < FULL_CELL_MIN  # the cells' own one-column glyphs (X, #)
    for reason in reasons:
        glyph = cell_glyph(palette, reason, 1 if compact else swatch_w)
        swatch = set_cell_size(f" {glyph} " if swatch_w > 1 else glyph, swatch_w)
        entries.append([Segment(swatch, palette.style(reason)), Segment(" " + palette.t(f"render.legend.{reason}", lang))])
    if several:  # cells blocked by several rules: their letters (or # in one column)
        if compact:
            entries.append([Segment(f" {SEVERAL_GLYPH} " if swatch_w > 1 else SEVERAL_GLYPH),
                            Segment(" " + palette.t("render.legend.several_compact", lang))])
        else:
            entries.append([Segment(palette.t("render.legend.several", lang))])
    if diff:  # cells of 1-2 columns show a differing cell's mark alone (render.grid_lines)
        entries.append([Segment(f" {DIFF_MARK} ", palette.style("diff")),
                        Segment(" " + palette.t("render.legend.diff" + ("_alone" if cw <= 2 else ""), lang))])
    if rows:
        entries.append([Segment(f"{palette.glyphs.arrow} {palette.t('render.legend.focus', lang)}")])
        select = SELECT_MARK["ascii" if palette.ascii else "unicode"]
        entries.append([Segment(f"{select} {palette.t('render.legend.selected', lang)}")])
    if pad_rows:
        entries.append([Segment(palette.t("render.pad_query", lang), palette.style("pad")),
                        Segment(" " + palette.t("tui.fig.pad_row", lang))])
    return flow(entries, max(1, width))


def _matrix(rows) -> str:
    def num(x: float) -> str:
        return str(int(x)) if float(x).is_integer() else f"{x:.3g}"

    shown = ["[" + ",".join(num(x) for x in row) + "]" for row in rows[:INPUT_ROWS_SHOWN]]
    more = len(rows) - len(shown)
    return "[" + ",".join(shown) + (f",… +{more}" if more > 0 else "") + "]"


def separators_at_ends(lines: list[Line], width: int, mark: str) -> list[Line]:
    """Wrapped one-style `lines` with a " · " separator that starts a line
    ("·" alone on a line, or "· V = …", read as a list bullet) moved to the
    end of the line before where it fits, else left out: the line break
    separates the items then."""
    out: list[Line] = []
    for line in lines:
        rest = "".join(s.text for s in line).lstrip()
        if out and rest.startswith(mark) and rest[len(mark):len(mark) + 1] in ("", " "):
            style = line[0].style if line else None
            before = "".join(s.text for s in out[-1]).rstrip()
            if cell_len(before) + 1 + cell_len(mark) <= width:
                out[-1] = [Segment(f"{before} {mark}", style)]
            rest = rest[len(mark):].lstrip()
            if not rest:
                continue
            line = [Segment(rest, style)]
        out.append(line)
    return out


def inputs_text(view: StepView, lang: str, palette: Palette, short: bool = False) -> str:
    """The declared inputs of the step, on the figure (not only at the end
    of the explanation); `short`: the tight figure's shorter sentence (the
    same numbers)."""
    spec = view.spec
    if spec.kind == "compare":
        cmp = view.compare
        assert cmp is not None
        scores = ", ".join(f"{s:g}" for s in cmp.scores)
        v = ", ".join(f"{row[0]:g}" for row in spec.v)
        key = "tui.fig.inputs_compare_short" if short else "tui.fig.inputs_compare"
        text = t(key, lang, scores=scores, v=v, q=spec.query_positions[cmp.row])
    else:
        d = len(spec.q[0]) if spec.q else 0
        key = "tui.fig.inputs_short" if short else "tui.fig.inputs"
        text = t(key, lang, q=_matrix(spec.q), k=_matrix(spec.k), v=_matrix(spec.v), d=d)
    return palette.tr(glue(text)).replace(" · ", "\u00a0· ")  # the separator stays with what it ends


def _compare_block(view: StepView, row: int, lang: str, palette: Palette) -> Block:
    """Step 4: the query's row of the table with, under the same key
    columns, every number of the comparison (scores, additive mask, exp
    terms, both denominators, both probability rows, both outputs)."""
    cmp = view.compare
    assert cmp is not None
    p = palette
    labels = [p.t(k, lang) for k in ("render.key", "render.cmp.score", "render.cmp.additive",
                                     "render.cmp.exp_unmasked", "render.cmp.exp_masked",
                                     "render.cmp.p_unmasked", "render.cmp.p_masked")]
    qlabel = p.glyphs.arrow + SELECT_MARK["ascii" if p.ascii else "unicode"] + f" q{view.table.query_positions[cmp.row]}"
    label_w = max(cell_len(x) for x in [*labels, qlabel]) + 1
    sep = Segment("|" if p.ascii else "│", p.style("dim"))
    neg = p.glyphs.neg_inf
    rows_num = [
        [fmt(x, 2, p) for x in cmp.scores],
        ["0" if a == 0 else neg for a in cmp.additive],
        [fmt(x) for x in cmp.exp_unmasked], [fmt(x) for x in cmp.exp_masked],
        [fmt(x) for x in cmp.weights_unmasked], [fmt(x) for x in cmp.weights_masked],
    ]
    cw = max(FULL_CELL_MIN, *(cell_len(x) + 1 for r in rows_num for x in r))
    total, out = p.t("render.cmp.sum", lang), p.t("render.cmp.out", lang)
    tails = ["", "", f"{total} = {fmt(cmp.denominator_unmasked)}", f"{total} = {fmt(cmp.denominator_masked)}",
             f"{out} = {fmt(cmp.output_unmasked[0])}", f"{out} = {fmt(cmp.output_masked[0])}"]
    strong = {3, 5}  # the masked denominator and output

    def label(text: str, style=None) -> Line:
        return [Segment(set_cell_size(text, label_w), style), sep]

    lines: list[Line] = [label(labels[0], p.style("header"))
                         + [Segment(f"k{pos}".rjust(cw), p.style("header")) for pos in view.table.key_positions]]
    cells = view.table.cells[cmp.row]
    selected = row == cmp.row
    qstyle = p.style("focus") + (p.style("selected") if selected else p.style("focus"))
    glyph_cells = []
    for c in cells:
        # A swatch " g" ending under the numbers' last digits, the gap before it plain.
        g = cell_glyph(p, c.value, cw - 2)
        swatch = f" {g}"
        glyph_cells += [Segment(" " * (cw - cell_len(swatch))), Segment(swatch, p.style(c.value))]
    lines.append(label(qlabel, qstyle) + glyph_cells)
    for i, (name, values) in enumerate(zip(labels[1:], rows_num)):
        style = p.style("number") if i in strong else None
        line = label(name) + [Segment(v.rjust(cw), style) for v in values]
        if tails[i]:
            line += [Segment("  "), Segment(tails[i], p.style("number") if i in strong else None)]
        lines.append(line)
    block = TextBlock(lines, frozen=label_w + 1)
    block.row_lines = lambda r: [1] if r == cmp.row else []  # type: ignore[method-assign]
    return block


@lru_cache(maxsize=64)
def source_of(view: StepView) -> StepTableSource:
    """The view's own table as a source, kept per view (a source scans its
    table once, render.grid_lines.table_scan, not at every row move; step
    5's row-number table, tiny and worded per language, is made as it is drawn).
    Keyed by the view's value: its hash is computed once per view
    (lesson.stepview.StepView._hash), so a lookup costs no walk of its table."""
    return StepTableSource(view)


def _tables(view: StepView, row: int, lang: str, palette: Palette, cw: int, side: bool,
            tokens: tuple[str, ...] | None = None, short: bool = False) -> Block:
    if view.offset_bug is None:
        return TableBlock(with_labels(source_of(view), tokens), palette, lang, row, cw)
    bug = view.offset_bug
    labels = tuple(palette.t("render.row_as", lang, row=i, pos=bug.table.query_positions[i])
                   for i in range(len(bug.table.query_positions)))
    right_title = "render.correct_table_short" if short else "render.correct_table"
    wrong_title = "render.wrong_table_short" if short else "render.wrong_table"
    right = TableBlock(with_labels(source_of(view), tokens), palette, lang, row, cw,
                       title=palette.t(right_title, lang), wrap_title=side)
    wrong = TableBlock(with_labels(StepTableSource(view, bug.table, bug.differs, labels), tokens), palette, lang,
                       row, cw, title=palette.t(wrong_title, lang), wrap_title=side)
    return SideBySide(right, wrong) if side else Column([right, wrong])


def _sources(view: StepView, tokens: tuple[str, ...] | None = None) -> list[TableSource]:
    out: list[TableSource] = [source_of(view)]
    if view.offset_bug is not None:
        out.append(StepTableSource(view, view.offset_bug.table, view.offset_bug.differs))
    return [with_labels(s, tokens) for s in out]


def full_cell_width(view: StepView, lang: str, palette: Palette, tokens: tuple[str, ...] | None = None) -> int:
    return max(TableBlock.full_width(s, palette, lang) for s in _sources(view, tokens))


def options(view: StepView, lang: str, palette: Palette, cells: str,
            tokens: tuple[str, ...] | None = None) -> list[tuple[int, bool]]:
    """The (cell width, side by side) layouts to try, best first."""
    full = full_cell_width(view, lang, palette, tokens)
    # Marked cells ("F!") get a third column where it fits: "F! F!", not "F!F!".
    compact = [3, 2, 1] if view.offset_bug is not None else [2, 1]
    widths = {"full": [full], "compact": compact, "auto": [full, *compact]}[cells]
    sides = [True, False] if view.offset_bug is not None else [False]
    return [(cw, side) for cw in widths for side in sides]


def build_figure(view: StepView, row: int, lang: str, palette: Palette, room: Room, cells: str = "auto",
                 tokens: tuple[str, ...] | None = None, layout: tuple[int, bool, bool] | None = None) -> Column:
    """The figure of `view` with query row `row` selected, laid out for
    `room`: the first layout that fits its width and height, else the first
    that fits its width, else the narrowest. After every full layout come
    the tight ones (a short screen): the legend of only
    the glyphs drawn, the shorter inputs sentence, one-line titles; the
    same numbers. `tokens`: a label per absolute position (--labels),
    beside each query and over each key. `layout`: the figure's `layout`
    (cell width, side by side, tight) chosen before for the same view and
    room - the row does not change which fits, so a row move builds that
    one instead of trying them all."""
    width = max(8, room.width)

    def one(cw: int, side: bool, tight: bool) -> Column:
        if view.compare is not None:
            figure = _assemble(view, _compare_block(view, row, lang, palette), lang, palette, width, cw, tight)
        else:
            figure = _assemble(view, _tables(view, row, lang, palette, cw, side, tokens, tight), lang, palette,
                               width, cw, tight)
        figure.layout = (cw, side, tight)  # type: ignore[attr-defined]
        return figure

    if layout is not None:
        return one(*layout)

    def layouts(tight: bool) -> Iterator[Column]:
        # One at a time: the first layout often fits (each costs a legend and a table block).
        if view.compare is not None:
            yield one(FULL_CELL_MIN, False, tight)
            return
        for cw, side in options(view, lang, palette, cells, tokens):
            yield one(cw, side, tight)

    tried: list[Column] = []
    for tight in (False, True):  # the tight layouts built only when no full layout fits
        for figure in layouts(tight):
            tried.append(figure)
            if figure.width <= width and figure.height <= room.height:
                return figure
    for figure in tried:
        if figure.width <= width:
            return figure
    return min(tried, key=lambda f: f.width)


def _assemble(view: StepView, tables: Block, lang: str, palette: Palette, width: int, cw: int,
              tight: bool = False) -> Column:
    # The legend's entries: causal and PAD always, each further rule a
    # table uses, and a word for cells of several rules; `tight`: only
    # those a drawn cell shows.
    shown = [view.table] + ([view.offset_bug.table] if view.offset_bug is not None else [])
    reasons = legend_meanings(*shown)
    if tight:
        drawn = {c.value for c in view.table.cells[view.compare.row]} if view.compare is not None else set().union(
            *(table.values for table in shown))
        reasons = drawn_meanings(reasons, drawn)
    several = several_rules(*shown)
    pad_rows = table_scan(source_of(view))["row_pad"]
    # The legend and inputs wrap to the tables' width (but not narrower
    # than LEGEND_MIN), so a small table leaves the room to the weights.
    room = min(width, max(tables.width, LEGEND_MIN))
    legend = TextBlock(legend_lines(reasons, palette, lang, room, cw, view.offset_bug is not None, pad_rows, several))
    inputs = TextBlock(separators_at_ends(wrap_text(inputs_text(view, lang, palette, tight), room,
                                                    palette.style("dim")), room, palette.tr("·")))
    extra = position_ids_text(view.table, lang, palette)  # RoPE positions, when they differ
    notes = TextBlock(wrap_text(extra, room, palette.style("dim")) if extra is not None else [])
    fixed = tables.header if isinstance(tables, TableBlock) else 0
    figure = Column([tables, legend, notes, inputs], fixed=fixed)
    figure.cell_width = cw  # type: ignore[attr-defined]
    figure.tight = tight  # type: ignore[attr-defined]
    return figure


def frame_size(views, lang: str, palette: Palette, room: Room, cells: str = "auto",
               tokens: tuple[str, ...] | None = None) -> tuple[int, int]:
    """The largest figure of `views` in `room`: the pane's size for the
    whole walkthrough, so that nothing jumps when stepping."""
    sizes = [(f.width, f.height) for f in (build_figure(v, 0, lang, palette, room, cells, tokens) for v in views)]
    return max(w for w, _ in sizes), max(h for _, h in sizes)

