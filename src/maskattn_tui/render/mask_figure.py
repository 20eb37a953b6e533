"""Mask mode's three blocks for a mask document (doctor.mask_open.MaskDoc)
and a view state (model.mask_model.MaskState): the user's table beside the
rule's, the bars of the selected row, the explanation. The mask screen's
views and `print --mask` both draw these (render.mask_lines' blocks over
the doctor's sources), so the text is what the screen shows."""

from __future__ import annotations

from maskattn_tui.doctor.mask_source import BlockSource, CellSource, Window
from maskattn_tui.doctor.mask_tables import REASONS
from maskattn_tui.doctor.mask_text import bars_caption, rule_title, sections, user_title
from maskattn_tui.i18n import t
from maskattn_tui.render.blocks import TextBlock
from maskattn_tui.render.mask_lines import GAP, MaskTableBlock, Twin, bar_lines, cell_width, section_lines
from maskattn_tui.render.palette import Palette
from maskattn_tui.render.table_source import with_labels


def table_sources(doc, state, tokens: tuple[str, ...] | None = None) -> tuple:
    """The user's and the rule's source for the view: cells (the whole mask
    or a drill-down's window; with `tokens`, a label per position) or
    blocks of the state's size."""
    tables = doc.tables
    if state.cells:
        window = Window(*state.window) if state.window is not None else None
        return (with_labels(CellSource(tables, "user", window), tokens),
                with_labels(CellSource(tables, "rule", window), tokens))
    return BlockSource(tables, "user", state.size), BlockSource(tables, "rule", state.size)


def twin_tables(doc, state, lang: str, sources: tuple, palette: Palette, width: int) -> Twin:
    """The two tables side by side in `width` cells, the selection marked."""
    user, rule = sources
    probe = MaskTableBlock(user, palette, lang, state.row, 1)
    cw = cell_width(user, palette, lang, (width - GAP) // 2, probe.frozen)
    told = doc.titles(lang) if hasattr(doc, "titles") else (user_title(doc.tables, lang), rule_title(doc.tables, lang))
    titles = tuple(palette.tr(title) for title in told)  # a rule's own document (scale.rule_doc) names itself
    left, right = (MaskTableBlock(src, palette, lang, state.row, cw, title=title, col=state.col)
                   for src, title in zip((user, rule), titles))
    return Twin(left, right, width)


def keys_shown(doc, state, room: int) -> list[int]:
    """Keys around the selected one (cells); on blocks, the row's largest
    weights (a block's own keys are mostly hidden ones)."""
    if not state.cells:
        return doc.weights(state.place[0]).largest(room)
    keys = doc.tables.keys
    c0 = max(0, min(state.place[1] - room // 2, keys - room))
    return list(range(c0, min(keys, c0 + room)))


def row_bars(doc, state, lang: str, palette: Palette, width: int, room: int) -> TextBlock:
    """The selected row's weights: `room` keys' bars under their caption."""
    tables = doc.tables
    row = state.place[0]
    weights = doc.weights(row)
    shown = keys_shown(doc, state, room)
    caption = bars_caption(weights, shown, lang, largest=not state.cells)
    if weights.empty or not shown:
        return bar_lines(caption, [], 1.0, palette, lang, width)
    caption.append(t("doctor_tui.bars.scale", lang))
    c0, c1 = min(shown), max(shown) + 1
    reasons = tables.reasons("user", row, row + 1, c0, c1)[0]  # one row's run of keys
    keys = [(k, REASONS[int(reasons[k - c0])], float(weights.weights[k])) for k in shown]
    return bar_lines(caption, keys, float(weights.weights.max()), palette, lang, width)


def explanation(doc, state, lang: str, palette: Palette, width: int) -> TextBlock:
    """The selection, the findings, what was read, the legend."""
    if hasattr(doc, "sections"):  # a rule the user built (scale.rule_doc): the rule, no doctor reading
        found = doc.sections(state, lang, palette.cell_glyph)
    else:
        found = sections(doc.tables, doc.info, state, lang, palette.cell_glyph)
    return TextBlock(section_lines(found, palette, width))
