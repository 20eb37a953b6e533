"""The API lens: how real libraries spell one visibility table.

Facts from ../shared/API-CONVENTIONS.md (torch 2.13, transformers 5.24,
FlashAttention README). Rows are queries (L), columns keys (S); our tables
are True = "this query may read this key".

`lens(table, name, lang)` returns plain, JSON-ready data (lists, bools,
numbers, strings; -inf is the string "-inf"):

    lens         name, e.g. "sdpa-bool"
    api          the library function or class
    argument     the argument that carries the mask or flag
    dtype        "bool" | "float" | "int" | "flag"
    shape        [rows, columns] of `value` ([] for a flag)
    meaning      what True / 1 / the flag means, in `lang`
    value        the mask as that API wants it (or the flag's value)
    companion    optional second argument needed with it, same keys as above
    table        the visibility the API ends up using (True = may read)
    matches      does `table` equal ours?
    differs      [[row, key], ...] cells where it does not
    empty_rows   rows of `table` with no visible key
    empty_row    what the API returns for such a row: a list of
                 {"path", "policy", "evidence", "text"}; policy is an
                 engine policy (nan / zeros / uniform) or "bias"
    note         one sentence on the pitfall, in `lang`
"""

from __future__ import annotations

from collections.abc import Sequence

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.engine.visibility import Cell, VisibilityTable

LENS_NAMES = (
    "sdpa-bool",
    "sdpa-float",
    "mha-attn-mask",
    "mha-key-padding",
    "hf",
    "flash",
    "torch-is-causal",
)
ALL = "all"
NEG_INF_TEXT = "-inf"

BoolRows = list[list[bool]]


def parse_lens_names(value: str | Sequence[str]) -> tuple[str, ...]:
    """"all", one name, or several separated by commas -> the lens names, in
    LENS_NAMES order. Unknown names raise MaskattnError."""
    parts = value.split(",") if isinstance(value, str) else list(value)
    names = [p.strip() for p in parts if p.strip()]
    if not names:
        raise MaskattnError("explore_lens", field="lens", value=value, choices=_choices())
    for name in names:
        if name != ALL and name not in LENS_NAMES:
            raise MaskattnError("explore_lens", field="lens", value=name, choices=_choices())
    if ALL in names:
        return LENS_NAMES
    return tuple(n for n in LENS_NAMES if n in names)


def _choices() -> str:
    return ", ".join((*LENS_NAMES, ALL))


def top_left(rows: int, cols: int) -> BoolRows:
    """torch `is_causal=True` (and FlashAttention 2.0): row r reads keys <= r."""
    return [[c <= r for c in range(cols)] for r in range(rows)]


def bottom_right(rows: int, cols: int) -> BoolRows:
    """FlashAttention >= 2.1 `causal=True`, torch `causal_lower_right(L, S)`,
    Hugging Face with a cache: row r reads keys <= r + (S - L)."""
    return [[c <= r + cols - rows for c in range(cols)] for r in range(rows)]


def _ours(table: VisibilityTable) -> BoolRows:
    return [list(row) for row in table.allowed]


def _future_only(table: VisibilityTable) -> BoolRows:
    return [[c in (Cell.FUTURE, Cell.FUTURE_PAD) for c in row] for row in table.cells]


def _and(a: BoolRows, b: BoolRows) -> BoolRows:
    return [[x and y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]


def _not_pad(table: VisibilityTable) -> BoolRows:
    return [[not p for p in table.key_is_pad] for _ in table.query_positions]


def _empty(lang: str, *paths: tuple[str, str, str]) -> list[dict]:
    return [
        {
            "path": t(f"explore.lens.path.{path}", lang),
            "policy": policy,
            "evidence": evidence,
            "text": t(f"explore.lens.empty.{path}", lang),
        }
        for path, policy, evidence in paths
    ]


def _entry(table: VisibilityTable, name: str, lang: str, api_table: BoolRows, **fields) -> dict:
    ours = _ours(table)
    differs = [
        [r, c]
        for r, (ra, rb) in enumerate(zip(ours, api_table))
        for c, (x, y) in enumerate(zip(ra, rb))
        if x != y
    ]
    entry = {"lens": name, **fields}
    entry.update(
        table=api_table,
        matches=not differs,
        differs=differs,
        empty_rows=[r for r, row in enumerate(api_table) if not any(row)],
    )
    entry["note"] = t(f"explore.lens.note.{name}", lang)
    return entry


_SDPA = "torch.nn.functional.scaled_dot_product_attention"
_MHA = "torch.nn.MultiheadAttention"


def lens(table: VisibilityTable, name: str, lang: str = "en") -> dict:
    """How API `name` (one of LENS_NAMES) spells `table`."""
    if name not in LENS_NAMES:
        raise MaskattnError("explore_lens", field="lens", value=name, choices=_choices())
    rows, cols = len(table.query_positions), len(table.key_positions)
    ours = _ours(table)
    meaning = t(f"explore.lens.meaning.{name}", lang)
    sdpa_empty = _empty(lang, ("sdpa_cpu", "zeros", "checked"), ("sdpa_reference", "nan", "doc"))
    if name == "sdpa-bool":
        return _entry(
            table, name, lang, ours,
            api=_SDPA, argument="attn_mask", dtype="bool", shape=[rows, cols],
            meaning=meaning, value=ours, empty_row=sdpa_empty,
        )
    if name == "sdpa-float":
        value = [[0.0 if ok else NEG_INF_TEXT for ok in row] for row in ours]
        return _entry(
            table, name, lang, ours,
            api=_SDPA, argument="attn_mask", dtype="float", shape=[rows, cols],
            meaning=meaning, value=value, empty_row=sdpa_empty,
        )
    mha_empty = _empty(
        lang,
        ("mha_need_weights", "nan", "checked"),
        ("mha_training", "bias", "checked"),
        ("mha_fast_path", "nan", "checked"),
    )
    if name == "mha-attn-mask":
        value = [[not ok for ok in row] for row in ours]
        return _entry(
            table, name, lang, ours,
            api=_MHA, argument="attn_mask", dtype="bool", shape=[rows, cols],
            meaning=meaning, value=value, empty_row=mha_empty,
        )
    if name == "mha-key-padding":
        value = [list(table.key_is_pad)]
        future = _future_only(table)
        companion = {
            "argument": "attn_mask",
            "dtype": "bool",
            "shape": [rows, cols],
            "meaning": t("explore.lens.meaning.mha-attn-mask", lang),
            "value": future,
        }
        api_table = _and([[not f for f in row] for row in future], _not_pad(table))
        return _entry(
            table, name, lang, api_table,
            api=_MHA, argument="key_padding_mask", dtype="bool", shape=[1, cols],
            meaning=meaning, value=value, companion=companion, empty_row=mha_empty,
        )
    if name == "hf":
        value = [[0 if pad else 1 for pad in table.key_is_pad]]
        api_table = _and(bottom_right(rows, cols), _not_pad(table))
        return _entry(
            table, name, lang, api_table,
            api="transformers (attention_mask)", argument="attention_mask", dtype="int",
            shape=[1, cols], meaning=meaning, value=value,
            # eager: the softmax runs in float32; finfo(float64).min becomes
            # -inf there, so only float64 gives NaN (checked, torch 2.13).
            empty_row=_empty(lang, ("hf_eager", "uniform", "checked"), ("hf_eager_f64", "nan", "checked"),
                             ("hf_sdpa", "zeros", "checked")),
        )
    if name == "flash":
        flag = table.causal
        api_table = bottom_right(rows, cols) if flag else [[True] * cols for _ in range(rows)]
        companion = {
            "argument": "causal (flash-attn 2.0)",
            "dtype": "flag",
            "shape": [],
            "meaning": t("explore.lens.meaning.flash_2_0", lang),
            "value": flag,
            "table": top_left(rows, cols) if flag else [[True] * cols for _ in range(rows)],
        }
        return _entry(
            table, name, lang, api_table,
            api="flash_attn.flash_attn_func", argument="causal", dtype="flag", shape=[],
            meaning=meaning, value=flag, companion=companion,
            empty_row=_empty(lang, ("flash", "zeros", "doc")),
        )
    # torch-is-causal
    flag = table.causal
    api_table = top_left(rows, cols) if flag else [[True] * cols for _ in range(rows)]
    companion = {
        "argument": "attn_mask=causal_lower_right(L, S)",
        "dtype": "bias",
        "shape": [rows, cols],
        "meaning": t("explore.lens.meaning.causal_lower_right", lang),
        "value": bottom_right(rows, cols),
    }
    return _entry(
        table, name, lang, api_table,
        api=_SDPA, argument="is_causal", dtype="flag", shape=[],
        meaning=meaning, value=flag, companion=companion, empty_row=sdpa_empty,
    )


def lenses(table: VisibilityTable, names: str | Sequence[str] = ALL, lang: str = "en") -> list[dict]:
    """Several lenses at once: `names` as accepted by parse_lens_names."""
    return [lens(table, name, lang) for name in parse_lens_names(names)]


def format_value(value: object) -> str:
    """A lens value as compact text: rows of 1/0 for bool and int masks,
    0 / -inf for float masks, True/False for a flag."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, list):
        if value and isinstance(value[0], list):
            return "\n".join(" ".join(_cell(x) for x in row) for row in value)
        return " ".join(_cell(x) for x in value)
    return _cell(value)


def _cell(x: object) -> str:
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)
