"""The softmax bars as lines of segments, on one scale for the whole
walkthrough: 1.0 is the full bar, and the bar's length depends on the
pane's width and the language only, never on the step, so a larger
weight never has a shorter bar."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment

from maskattn_tui.lesson.stepview import StepView
from maskattn_tui.render.grid_lines import Line, TextBlock, cell_glyph, glue, wrap_text
from maskattn_tui.render.numbers import fmt
from maskattn_tui.render.palette import Palette

BAR_MIN, BAR_MAX = 4, 40
#: The probability's width ("0.0000").
NUMBER_W = 6
GLYPH_W = 2
#: The shortest bar worth writing the reasons beside (else the cell's letter says it).
BAR_WITH_REASONS = 8
#: The weights' forms, fullest first, as bar_block's (note, short): the
#: closing note left out, then the one-line title too (a short pane).
BAR_FORMS = ((True, False), (False, False), (False, True))
#: The output line's forms, longest first: the first that fits is shown.
OUTPUT_FORMS = ("render.output", "render.output_tight", "render.output_formula")


def _key_width(views: Sequence[StepView]) -> int:
    return max(len(f"k{pos}") for v in views for pos in v.table.key_positions)


def _reason_width(views: Sequence[StepView], lang: str, palette: Palette) -> int:
    """The widest "blocked: ..." reason of any step (a longer reason, as
    step 4's "would be blocked: ...", is written only where it fits)."""
    values = {value for v in views for value in v.table.values if value != "allowed"}  # kept with each table
    return max((cell_len(palette.reason_text(value, lang, "blocked")) for value in values), default=0)


def bar_layout(views: Sequence[StepView], lang: str, palette: Palette, width: int) -> tuple[int, bool]:
    """The bar's length and whether the reasons are written, for every step
    of `views` in `width` columns."""
    fixed = _key_width(views) + 1 + GLYPH_W + 1 + 1 + NUMBER_W
    reasons = _reason_width(views, lang, palette)
    if reasons and width - fixed - reasons - 1 >= BAR_WITH_REASONS:
        return min(BAR_MAX, width - fixed - reasons - 1), True
    return max(BAR_MIN, min(BAR_MAX, width - fixed)), False


def bar_cells(p: float, width: int, palette: Palette) -> tuple[str, str]:
    """A bar of p * width cells, with eighth-block precision where the glyph
    set has it: (the bar, the dots that fill the rest of the width). NaN:
    no bar, all dots."""
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


def bar_segments(p: float, width: int, palette: Palette, style_name: str = "bar") -> Line:
    """p * width cells of bar (bar_cells), dots after it."""
    bar, rest = bar_cells(p, width, palette)
    return [Segment(bar, palette.style(style_name)), Segment(rest, palette.style("bar.empty"))]


def bar_block(views: Sequence[StepView], view: StepView, row: int, lang: str, palette: Palette,
              width: int, note: bool = True, short: bool = False) -> TextBlock:
    """The bars of query row `row` of `view`, laid out as for every step of
    `views`; `note`: end with "weights over positions, not confidence";
    `short`: the one-line title ("softmax of query 1", a short pane)."""
    bar_w, reasons = bar_layout(views, lang, palette, width)
    kw = _key_width(views)
    row = min(max(0, row), len(view.table.query_positions) - 1)
    result = view.result
    p = palette
    lines: list[Line] = []

    def text(s: str, style_name: str | None = None) -> None:
        lines.extend(wrap_text(glue(s), width, p.style(style_name) if style_name else None))

    # Per block, not per key: the styles, a cell value's glyph and reason
    # (a row of 64 keys asked the palette ~300 times on every row move).
    styles: dict[str, object] = {}
    glyphs: dict[str, Segment] = {}
    said: dict[tuple[str, bool], str] = {}

    def style(name: str):
        if name not in styles:
            styles[name] = p.style(name)
        return styles[name]

    def group(weights, unmasked: bool) -> None:
        # key, glyph, bar and number: their widths add up to this (bar_layout's arithmetic)
        fixed = kw + 1 + GLYPH_W + 1 + bar_w + 1 + NUMBER_W
        for j, pos in enumerate(view.table.key_positions):
            cell = view.table.cells[row][j]
            value = cell.value
            w = weights[j] if weights is not None else math.nan
            if value not in glyphs:
                glyphs[value] = Segment(set_cell_size(cell_glyph(p, value, GLYPH_W), GLYPH_W), style(value))
            line: Line = [Segment(f"k{pos}".ljust(kw) + " "), glyphs[value], Segment(" ")]
            bar, rest = bar_cells(w, bar_w, p)
            line += [Segment(bar, style("bar" if cell.allowed else "bar.blocked")), Segment(rest, style("bar.empty"))]
            number = fmt(w) if weights is not None else p.tr("—")
            line.append(Segment(" " + number.rjust(NUMBER_W), style("number")))
            if reasons and not cell.allowed:
                if (value, unmasked) not in said:
                    said[value, unmasked] = " " + p.reason_text(value, lang, "leak" if unmasked else "blocked")
                reason = said[value, unmasked]
                length = fixed + max(0, cell_len(number) - NUMBER_W)  # a wider number pushes the reason
                if length + cell_len(reason) <= width:
                    line.append(Segment(reason, style("dim")))
            lines.append(line)

    title = "render.bars_title_short" if short else "render.bars_title"
    text(p.t(title, lang, pos=view.table.query_positions[row]), "title")
    if view.compare is not None and row == view.compare.row:
        text(p.t("render.bars_no_mask", lang), "header")
        group(view.compare.weights_unmasked, True)
        text(p.t("render.bars_masked", lang), "header")
    group(result.weights[row], False)
    if not view.table.row_has_visible_key(row):
        policy = result.policy
        text(p.t("render.empty_row", lang, policy=policy, result=p.t(f"render.empty.{policy}", lang)), "warning")
    output = result.outputs[row]
    if output is not None:
        value = ", ".join(fmt(x) for x in output)
        # One line where it fits (a wrap cut "output = Σ" from "p·v = 10.0000"
        # in the 21 columns of the weights at 80x24): shorter forms first.
        said = [p.t(key, lang, value=value) for key in OUTPUT_FORMS]
        text(next((x for x in said if cell_len(x) <= width), said[0]), "number")
    if view.offset_bug is not None:
        wrong = view.offset_bug.result.outputs[row]
        if wrong is not None and output is not None:
            text(p.t("render.output_wrong", lang, wrong=", ".join(fmt(x) for x in wrong),
                     right=", ".join(fmt(x) for x in output)), "warning")
    if note:
        text(p.t("render.not_confidence", lang), "dim")
    return TextBlock(lines)
