"""Mask mode's three blocks for a mask document (maskmode.document.MaskDocument)
and a view state (model.mask_model.MaskState): the user's table beside the
rule's, the bars of the selected row, the explanation. The mask screen's
views and `print --mask` both draw these (render.mask_lines' blocks over
the doctor's sources), so the text is what the screen shows."""

from __future__ import annotations

from rich.cells import cell_len

from maskattn_tui.i18n import t
from maskattn_tui.maskmode.document import MaskDocument
from maskattn_tui.maskmode.sources import BlockSource, CellSource, Window
from maskattn_tui.maskmode.tables import REASONS
from maskattn_tui.maskmode.text import bars_caption, rule_title, sections, user_title
from maskattn_tui.render.blocks import TextBlock
from maskattn_tui.render.mask_lines import GAP, MaskTableBlock, Twin, bar_lines, cell_width, section_lines
from maskattn_tui.render.palette import Palette
from maskattn_tui.render.table_source import with_labels
from maskattn_tui.render.wrap import cut_at_word


def table_sources(doc: MaskDocument, state, tokens: tuple[str, ...] | None = None) -> tuple:
    """The user's and the rule's source for the view: cells (the whole mask
    or a drill-down's window; with `tokens`, a label per position) or
    blocks of the state's size."""
    tables = doc.tables
    if state.cells:
        window = Window(*state.window) if state.window is not None else None
        return (with_labels(CellSource(tables, "user", window), tokens),
                with_labels(CellSource(tables, "rule", window), tokens))
    return BlockSource(tables, "user", state.size), BlockSource(tables, "rule", state.size)


def _short_rule(options, lang: str) -> str | None:
    """A built rule in explore's short words ("causal · window W = 4096"),
    when it is only causal / window / chunk / prefix (else None)."""
    if (options.pad or options.pad_keys or options.documents or options.tree or options.bidirectional
            or options.cache_slots or (options.window is not None and not options.causal)):
        return None
    words = [t("explore.rule.causal" if options.causal else "explore.rule.not_causal", lang)]
    words += [t(f"explore.rule.{name}", lang, value=value)
              for name, value in (("window", options.window), ("chunk", options.chunk), ("prefix", options.prefix))
              if value is not None]
    return t("explore.rule_sep", lang).join(words)


def _bare(title: str, key: str, name: str, lang: str) -> str | None:
    """`title` without its label ("the rule: "), when it starts with it."""
    label = t(key, lang, **{name: ""})
    return title[len(label):] if title.startswith(label) and len(title) > len(label) else None


def title_forms(doc: MaskDocument, lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Each table's titles, fullest first (the first that fits is shown,
    never one cut mid-word): the whole title, without its label, a short
    rule name, the label alone."""
    own = doc.rule_text
    if own is not None:  # a rule the user built (maskmode.rule_doc) names itself
        rule, same = own.titles(lang)
        short = _short_rule(own.options, lang)
        left = (rule, _bare(rule, "scale_app.table.rule", "rules", lang),
                short and t("scale_app.table.rule", lang, rules=short), t("doctor_tui.table.rule_short", lang))
        right: tuple = (same, t("scale_app.table.same_short", lang))
        return tuple(f for f in left if f), right
    tables = doc.tables  # no rule_text: the doctor's reading of a saved table (maskmode.tables.MaskTables)
    user, rule = user_title(tables, lang), rule_title(tables, lang)
    if tables.realigned:  # "if a KV cache: ..., after N cached keys": never the rule without its offset
        rules: tuple = (rule, t("doctor_tui.table.fix_short", lang, past=tables.offset))
    else:
        rules = tuple(f for f in (rule, _bare(rule, "doctor_tui.table.rule", "rule", lang),
                                  t("doctor_tui.table.rule_short", lang)) if f)
    return (user, t("doctor_tui.table.user_short", lang)), rules


def twin_tables(doc: MaskDocument, state, lang: str, sources: tuple, palette: Palette, width: int) -> Twin:
    """The two tables side by side in `width` cells, the selection marked;
    each title the fullest form that fits the room the twin gives it (the
    left one kept fuller first), else its shortest cut at a word."""
    user, rule = sources
    probe = MaskTableBlock(user, palette, lang, state.row, 1)
    cw = cell_width(user, palette, lang, (width - GAP) // 2, probe.frozen)
    forms = [tuple(palette.tr(f) for f in side) for side in title_forms(doc, lang)]

    def twin(left_title: str, right_title: str) -> Twin:
        left, right = (MaskTableBlock(src, palette, lang, state.row, cw, title=title, col=state.col)
                       for src, title in zip((user, rule), (left_title, right_title)))
        return Twin(left, right, width)

    def rooms(pair: Twin) -> tuple[int, int]:
        half = pair.half(width)
        rest = max(0, width - half - GAP)
        return half, min(half, rest) if pair.width > width else rest  # as Twin.window draws them

    for a in forms[0]:
        for b in forms[1]:
            pair = twin(a, b)
            left_room, right_room = rooms(pair)
            if cell_len(a) <= left_room and cell_len(b) <= right_room:
                return pair
    a, b = forms[0][-1], forms[1][-1]
    left_room, right_room = rooms(twin(a, b))
    ellipsis = palette.glyphs.ellipsis
    return twin(cut_at_word(a, left_room, ellipsis), cut_at_word(b, right_room, ellipsis))


def keys_shown(doc: MaskDocument, state, room: int) -> list[int]:
    """Keys around the selected one (cells); on blocks, the row's largest
    weights (a block's own keys are mostly hidden ones)."""
    if not state.cells:
        return doc.weights(state.place[0]).largest(room)
    keys = doc.tables.keys
    c0 = max(0, min(state.place[1] - room // 2, keys - room))
    return list(range(c0, min(keys, c0 + room)))


def row_bars(doc: MaskDocument, state, lang: str, palette: Palette, width: int, room: int) -> TextBlock:
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


def explanation(doc: MaskDocument, state, lang: str, palette: Palette, width: int, printed: bool = False) -> TextBlock:
    """The selection, the findings, what was read, the legend (`printed`:
    print --mask's, which names options, not keys)."""
    own = doc.rule_text
    if own is not None:  # a rule the user built (maskmode.rule_doc): the rule, no doctor reading
        found = own.sections(state, lang, palette.cell_glyph)
    else:
        found = sections(doc.tables, doc.info, state, lang, palette.cell_glyph, printed)
    return TextBlock(section_lines(found, palette, width))
