"""The API lens as a Rich renderable: how each chosen library spells the
current visibility table, what it lets through (1 = may read), where that
differs from our table (marked "!"), and what it returns for a row with no
visible key. The data comes from explore.api_lens; this module only draws."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text

from maskattn_tui.explore.api_lens import NEG_INF_TEXT, lenses
from maskattn_tui.render.matrix import MARK, SmallMatrix, side_by_side
from maskattn_tui.render.palette import Palette
from maskattn_tui.engine.visibility import VisibilityTable

BoolRows = Sequence[Sequence[bool]]

#: How each lens's polarity relates to ours (True = may read).
POLARITY = {
    "sdpa-bool": "same",
    "sdpa-float": "additive",
    "mha-attn-mask": "opposite",
    "mha-key-padding": "keys",
    "hf": "keys",
    "flash": "flag",
    "torch-is-causal": "flag",
    "flex": "source",
}


def _q(table: VisibilityTable) -> list[str]:
    return [f"q{p}" for p in table.query_positions]


def _k(table: VisibilityTable) -> list[str]:
    return [f"k{p}" for p in table.key_positions]


def _bit(x: object) -> str:
    return "1" if x else "0"


def cell_style(table: VisibilityTable, r: int, c: int, readable: bool, palette: Palette) -> Style:
    """Style of a cell that an API reads (or not): allowed, our reason for
    blocking it, or "diff" when the API disagrees with our table."""
    ours = table.cells[r][c]
    if readable != ours.allowed:
        return palette.style("diff")
    return palette.style(ours.value)


def visibility_matrix(
    table: VisibilityTable, api: BoolRows, title: str, palette: Palette, mark_diffs: bool = True,
    lang: str | None = None,
) -> SmallMatrix:
    """`api` (True = may read) as 1/0, each cell that differs from `table`
    followed by "!"; with `lang`, a line under it saying whether it is our
    table."""
    marks = [[bool(x) != ours.allowed for x, ours in zip(row, orow)] for row, orow in zip(api, table.cells)]
    notes: tuple[Text, ...] = ()
    if lang is not None:
        count = sum(map(sum, marks))
        notes = (Text(palette.t("render.x.cells_differ", lang, count=count), style=palette.style("warning"))
                 if count else Text(palette.t("render.x.same", lang), style=palette.style("dim")),)
    return SmallMatrix(
        row_labels=_q(table),
        col_labels=_k(table),
        cells=[[_bit(x) for x in row] for row in api],
        styles=[[cell_style(table, r, c, bool(x), palette) for c, x in enumerate(row)] for r, row in enumerate(api)],
        marks=marks if mark_diffs else None,
        title=Text(title, style=palette.style("header")),
        label_style=palette.style("dim"),
        notes=notes,
    )


def keys_text(positions: Sequence[int], lang: str, palette: Palette) -> str:
    """Key positions as text: k4; k1–k3 (contiguous); k0, k2."""
    ps = sorted(positions)
    if not ps:
        return palette.t("explore.none", lang)
    if len(ps) > 1 and ps == list(range(ps[0], ps[-1] + 1)):
        return palette.tr(f"k{ps[0]}–k{ps[-1]}")
    return palette.t("explore.list_sep", lang).join(f"k{p}" for p in ps)


def cells_by_row(table: VisibilityTable, cells: Sequence[Sequence[int]], lang: str, palette: Palette) -> str:
    """[(row, key index), ...] -> "q3: k1–3; q4: k2–4" (absolute positions)."""
    rows: dict[int, list[int]] = {}
    for r, c in cells:
        rows.setdefault(r, []).append(table.key_positions[c])
    sep = palette.t("render.x.row_sep", lang)
    return sep.join(
        f"q{table.query_positions[r]}: {keys_text(keys, lang, palette)}" for r, keys in sorted(rows.items())
    ) or palette.t("explore.none", lang)


def rows_text(table: VisibilityTable, rows: Sequence[int], lang: str, palette: Palette) -> str:
    if not rows:
        return palette.t("explore.none", lang)
    return palette.t("explore.list_sep", lang).join(f"q{table.query_positions[r]}" for r in rows)


def _value_matrix(table: VisibilityTable, entry: dict, lang: str, palette: Palette) -> SmallMatrix:
    """The mask as the API wants it, in the API's own spelling."""
    name, value = entry["lens"], entry["value"]
    title = Text(f"{entry['argument']}", style=palette.style("header"))
    title.append(palette.t("render.x.value_shape", lang, dtype=entry["dtype"],
                           shape=palette.tr(" × ".join(str(n) for n in entry["shape"]))), style=palette.style("dim"))
    if name in ("mha-key-padding", "hf"):
        row = value[0]
        pad_style = palette.style("pad")
        return SmallMatrix(
            row_labels=[""], col_labels=_k(table),
            cells=[[_bit(x) for x in row]],
            styles=[[pad_style if pad else None for pad in table.key_is_pad]],
            title=title, label_style=palette.style("dim"),
        )
    api = entry["table"]

    def spell(x: object) -> str:
        if x == NEG_INF_TEXT:
            return palette.glyphs.neg_inf
        if isinstance(x, float):
            return f"{x:g}"
        return _bit(x)

    return SmallMatrix(
        row_labels=_q(table), col_labels=_k(table),
        cells=[[spell(x) for x in row] for row in value],
        styles=[[cell_style(table, r, c, bool(ok), palette) for c, ok in enumerate(row)] for r, row in enumerate(api)],
        title=title, label_style=palette.style("dim"),
    )


def _companion_matrix(table: VisibilityTable, entry: dict, lang: str, palette: Palette) -> RenderableType | None:
    comp = entry.get("companion")
    if not comp:
        return None
    name = entry["lens"]
    title = palette.tr(comp["meaning"])
    if name == "mha-key-padding":
        future = palette.style("future")
        return SmallMatrix(
            row_labels=_q(table), col_labels=_k(table),
            cells=[[_bit(x) for x in row] for row in comp["value"]],
            styles=[[future if x else None for x in row] for row in comp["value"]],
            title=Text(f"{comp['argument']}: {title}", style=palette.style("header")),
            label_style=palette.style("dim"),
        )
    api = comp["table"] if name == "flash" else comp["value"]
    return visibility_matrix(table, api, title, palette, lang=lang)


def _empty_row_text(entry: dict, lang: str, palette: Palette) -> Text:
    text = Text(palette.t("render.x.lens.empty_row", lang), style=palette.style("header"))
    answers = [
        palette.t("render.x.lens.empty_answer", lang, path=palette.tr(e["path"]), text=palette.tr(e["text"]),
                  evidence=palette.t(f"explore.lens.evidence.{e['evidence']}", lang))
        for e in entry["empty_row"]
    ]
    text.append(palette.t("render.x.answer_sep", lang).join(answers))
    return text


def _verdict(table: VisibilityTable, entry: dict, lang: str, palette: Palette) -> Text:
    if entry["matches"]:
        text = Text()
        text.append(palette.glyphs.allowed, style=palette.style("allowed"))
        text.append(" " + palette.t("render.x.lens.matches", lang))
        return text
    text = Text()
    text.append(MARK, style=palette.style("diff"))
    text.append(" ")
    text.append(palette.t("render.x.lens.differs", lang, count=len(entry["differs"]),
                          cells=cells_by_row(table, entry["differs"], lang, palette)),
                style=palette.style("warning"))
    return text


def _argument(value: object) -> str:
    """An argument as Python would spell it: None, [2, 0], 3."""
    if value is None:
        return "None"
    if isinstance(value, list):
        return "[" + ", ".join(str(x) for x in value) + "]"
    return str(value)


def lens_block(table: VisibilityTable, number: int, entry: dict, lang: str, palette: Palette) -> RenderableType:
    name = entry["lens"]
    head = Text(f"{number}. {palette.t(f'render.x.lens.name.{name}', lang)}", style=palette.style("title"))
    head.append(f"  {entry['api']}", style=palette.style("dim"))
    polarity = POLARITY[name]
    meaning = Text(palette.tr(entry["meaning"]),
                   style=palette.style("warning" if polarity == "opposite" else "header"))
    meaning.append(palette.t(f"render.x.polarity.{polarity}", lang), style=palette.style("dim"))
    parts: list[RenderableType] = [head, meaning]
    if entry["arguments"]:
        args = ", ".join(f"{k} = {_argument(v)}" for k, v in entry["arguments"].items())
        parts.append(Text(palette.t("render.x.lens.arguments", lang, arguments=args), style=palette.style("number")))
    if entry["dtype"] == "source":
        parts.append(Text(palette.t("render.x.lens.source", lang), style=palette.style("header")))
        parts.append(Text(entry["value"].rstrip("\n"), no_wrap=True, overflow="ellipsis"))
        shown = [visibility_matrix(table, entry["table"], palette.t("render.x.lens.effective", lang), palette)]
    elif entry["dtype"] == "flag":
        parts.append(Text(palette.t("render.x.lens.flag", lang, argument=entry["argument"],
                                    value=entry["value"]), style=palette.style("number")))
        shown = [visibility_matrix(table, entry["table"], palette.t("render.x.lens.effective", lang), palette)]
    else:
        shown = [
            _value_matrix(table, entry, lang, palette),
            visibility_matrix(table, entry["table"], palette.t("render.x.lens.effective", lang), palette),
        ]
    parts.append(side_by_side(shown))
    parts.append(_verdict(table, entry, lang, palette))
    companion = _companion_matrix(table, entry, lang, palette)
    if companion is not None:
        parts.append(companion)
    if entry["empty_rows"]:
        parts.append(Text(palette.t("render.x.lens.empty_here", lang,
                                    rows=rows_text(table, entry["empty_rows"], lang, palette)),
                          style=palette.style("warning")))
    for limit in entry["limits"]:
        parts.append(Text(f"{MARK} " + palette.tr(limit), style=palette.style("warning")))
    parts.append(_empty_row_text(entry, lang, palette))
    parts.append(Text(palette.tr(entry["note"]), style=palette.style("dim")))
    return Group(*parts)


def api_lens_view(table: VisibilityTable, names: str | Sequence[str], lang: str, palette: Palette,
                  scores: Sequence[Sequence[float]] | None = None) -> RenderableType:
    """Our table, then one block per API in `names` ("all", "sdpa-bool,hf",
    or a sequence of lens names); `scores` as explore.api_lens.lens takes them."""
    ours = [[c.allowed for c in row] for row in table.cells]
    intro = visibility_matrix(table, ours, palette.t("render.x.lens.ours", lang), palette, mark_diffs=False)
    key = Text(palette.t("render.x.lens.legend", lang, mark=MARK, allowed="1", blocked="0"),
               style=palette.style("dim"))
    parts: list[RenderableType] = [intro, key]
    for i, entry in enumerate(lenses(table, names, lang, scores), start=1):
        parts.append(Text(""))
        parts.append(lens_block(table, i, entry, lang, palette))
    return Group(*parts)
