"""Mask mode's screen as a page (`print --mask`, and the mask figure in a
notebook): the user's table beside the rule's (cells, or blocks where the
mask is larger than the page), the selected row's bars, the explanation
(findings, what was read, the legend), laid out for the page's width as
the screen would be. A page has no keys to press, so nothing on it tells
one to press a key.

`row` / `key` select in the named mask, as `--row` does in the app: the
cells around (row, key) (key: the row's own position by default)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment
from rich.text import Text

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.maskmode.document import MaskDocument
from maskattn_tui.maskmode.sources import CellSource
from maskattn_tui.model.mask_model import MaskState, new_state
from maskattn_tui.printable import escaped
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


def selected(state: MaskState, row: int | None, key: int | None, offset: int) -> MaskState:
    """The state with (row, key) selected, checked against the mask's own
    range: the cell itself when the page shows cells, else the cells of the
    largest block around it that fits the page (as the app's --row drills
    into its block)."""
    if row is None and key is None:
        return state
    if row is not None and not 0 <= row < state.rows:
        raise MaskattnError("scale_row", value=row, hi=state.rows - 1)
    if key is not None and not 0 <= key < state.keys:
        raise MaskattnError("scale_key", value=key, hi=state.keys - 1)
    row = 0 if row is None else row
    key = min(row + offset, state.keys - 1) if key is None else key
    if state.cells:
        return state.goto(row, key)
    fits = max((s for s in state.sizes if s <= min(PAGE_ROWS, state.fit[1])), default=state.sizes[0])
    zoomed = new_state(state.rows, state.keys, *state.fit, fits, state.least).goto(row, key)
    return zoomed.drill().goto(row, key)


def _title(doc: MaskDocument, lang: str) -> str:
    """The mask's name (control characters escaped) and its slice, as the
    screen's title bar gives it without the keys."""
    info = doc.info
    if info.batch is None:
        return escaped(doc.path)
    return escaped(doc.path) + t("doctor_tui.slice.which" if info.head is not None else "doctor_tui.slice.which3",
                                 lang, batch=info.batch, head=info.head)


def page(doc: MaskDocument, lang: str, palette: Palette, width: int, block: int | None = None,
         tokens: tuple[str, ...] | None = None, row: int | None = None,
         key: int | None = None) -> list[RenderableType]:
    tables = doc.tables
    frozen = TableBlock(CellSource(tables, "user"), palette, lang, 0, 1).frozen
    fit_cols = max(1, ((width - GAP) // 2 - frozen) // COMPACT)
    state = selected(new_state(tables.rows, tables.keys, PAGE_ROWS, fit_cols, block), row, key, tables.offset)
    twin = twin_tables(doc, state, lang, table_sources(doc, state, tokens), palette, width)
    x = twin.reveal_x(0, width, state.col)  # the selected key on the page
    picker = doc.capture
    if picker is None:
        title = rule([Segment(palette.tr(_title(doc, lang)), palette.style("title"))], palette)
    else:  # which call and slice, and what was left out: wrapped, never cut (text, never markup)
        title = Text(palette.tr(picker.label(lang, keys=False)), style=palette.style("title"))
    return [title,
            TextBlock([twin.window(y, x, width) for y in range(twin.height)]),
            BLANK,
            AtWidth(lambda w: row_bars(doc, state, lang, palette, w, min(BAR_KEYS, tables.keys))),
            BLANK,
            AtWidth(lambda w: explanation(doc, state, lang, palette, w, printed=True))]
