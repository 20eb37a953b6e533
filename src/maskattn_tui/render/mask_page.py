"""Mask mode's screen as a page (`print --mask`, and the mask figure in a
notebook): the user's table beside the rule's (cells, or blocks where the
mask is larger than the page), the first row's bars, the explanation
(findings, what was read, the legend), laid out for the page's width as
the screen would be."""

from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment

from maskattn_tui.model.mask_model import new_state
from maskattn_tui.render.blocks import AtWidth, TextBlock
from maskattn_tui.render.grid_lines import TableBlock
from maskattn_tui.render.mask_figure import explanation, row_bars, table_sources, twin_tables
from maskattn_tui.render.mask_lines import COMPACT, GAP
from maskattn_tui.render.palette import Palette
from maskattn_tui.render.printout import BLANK, rule

#: Rows of cells a page shows before it turns to blocks (a page is not a
#: screen: a log can hold them), and the keys the bars show.
PAGE_ROWS = 64
BAR_KEYS = 16


def page(doc, lang: str, palette: Palette, width: int, block: int | None = None,
         tokens: tuple[str, ...] | None = None) -> list[RenderableType]:
    tables = doc.tables
    from maskattn_tui.doctor.mask_source import CellSource

    frozen = TableBlock(CellSource(tables, "user"), palette, lang, 0, 1).frozen
    fit_cols = max(1, ((width - GAP) // 2 - frozen) // COMPACT)
    state = new_state(tables.rows, tables.keys, PAGE_ROWS, fit_cols, block)
    twin = twin_tables(doc, state, lang, table_sources(doc, state, tokens), palette, width)
    return [rule([Segment(palette.tr(doc.path), palette.style("title"))], palette),
            TextBlock([twin.window(y, 0, width) for y in range(twin.height)]),
            BLANK,
            AtWidth(lambda w: row_bars(doc, state, lang, palette, w, min(BAR_KEYS, tables.keys))),
            BLANK,
            AtWidth(lambda w: explanation(doc, state, lang, palette, w))]
