"""The API lens: how real libraries spell one visibility table.

Facts read in the libraries and checked on CPU (torch 2.13, transformers 5.24,
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
    table        the visibility the API computes from these arguments
                 (True = may read); for flex, what running the source gives
    matches      does `table` equal ours?
    differs      [[row, key], ...] cells where it does not
    empty_rows   rows of `table` with no visible key
    empty_row    what the API returns for such a row: a list of
                 {"path", "policy", "evidence", "text"}; policy is an
                 engine policy (nan / zeros / uniform), "bias", or
                 "scores" (HF eager float16 for large scores: + "example")
    note         one sentence on the pitfall, in `lang`
    arguments    the pattern's own arguments as this API spells them, e.g.
                 {"sliding_window": 3} (hf), {"window_size": [2, 0]} (flash)
    limits       what this API cannot express of the table's patterns, one
                 sentence each, in `lang` ([] when it expresses them all)

The `flex` lens's value is Python source (dtype "source"): a mask_mod for
`create_block_mask(mask_mod, 1, 1, new, past + new)` (explore.flex_source).
"""

from __future__ import annotations

from collections.abc import Sequence

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.engine.rules import Pattern, document_of
from maskattn_tui.engine.visibility import VisibilityTable

from maskattn_tui.explore.lens_float16 import float16_verdict
from maskattn_tui.explore.lens_flash import flash_spelling, flash_tables
from maskattn_tui.explore.lens_hf import hf_finish, hf_rules
from maskattn_tui.explore.flex_source import mask_mod_source, run_mask_mod

LENS_NAMES = (
    "sdpa-bool",
    "sdpa-float",
    "mha-attn-mask",
    "mha-key-padding",
    "hf",
    "flash",
    "torch-is-causal",
    "flex",
)
ALL = "all"
#: Lenses that take a dense (L, S) mask: every pattern fits, but none has an argument of its own.
DENSE = ("sdpa-bool", "sdpa-float", "mha-attn-mask", "mha-key-padding")
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


def _not_by_pad_alone(table: VisibilityTable) -> BoolRows:
    """Cells blocked by some rule other than PAD (future, window, ...): what
    attn_mask must carry beside key_padding_mask."""
    return [[any(r != "pad" for r in c.reasons) for c in row] for row in table.cells]


def _pattern(table: VisibilityTable) -> Pattern:
    return table.pattern or Pattern(causal=table.causal)


def _used(table: VisibilityTable) -> tuple[str, ...]:
    """The pattern rules this table uses (config names)."""
    p = _pattern(table)
    names = ("window", "chunk", "prefix", "documents", "tree", "sinks")
    return tuple(n for n in names if getattr(p, n) is not None)


def _limits(name: str, cannot: Sequence[str], lang: str) -> list[str]:
    return [t(f"explore.lens.limit.{name}.{rule}", lang) for rule in cannot]


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
    limits = [t("explore.lens.limit.dense", lang, rules=", ".join(_used(table)))] if (
        name in DENSE and _used(table)) else []
    entry = {"lens": name, "arguments": {}, "limits": limits, **fields}
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


def lens(table: VisibilityTable, name: str, lang: str = "en", scores: Sequence[Sequence[float]] | None = None) -> dict:
    """How API `name` (one of LENS_NAMES) spells `table`. `scores` (the
    scaled scores a model would see, per row: model_scores) make the
    float16 empty-row claim of `hf` the one for these scores."""
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
        future = _not_by_pad_alone(table)
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
        return _hf(table, lang, meaning, rows, cols, scores)
    if name == "flash":
        return _flash(table, lang, meaning, rows, cols)
    if name == "flex":
        p = _pattern(table)
        source = mask_mod_source(table.query_positions, cols, table.key_is_pad, p, ours, lang)
        return _entry(
            table, name, lang, run_mask_mod(source, rows, cols),
            api="torch.nn.attention.flex_attention.create_block_mask", argument="mask_mod", dtype="source",
            shape=[rows, cols], meaning=meaning, value=source, empty_row=_empty(lang, ("flex", "zeros", "checked")),
            arguments={"WINDOW": p.window, **({"RIGHT": p.window_right} if p.window_right is not None else {})}
            if p.window is not None else {},
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
        limits=_limits(name, _used(table), lang),
    )


def _hf(table: VisibilityTable, lang: str, meaning: str, rows: int, cols: int,
        scores: Sequence[Sequence[float]] | None) -> dict:
    """transformers: a 2D attention_mask plus the config's sliding_window /
    attention_chunk_size; packed documents only from position_ids with
    attention_mask=None and no cache; a tree only as a dense 4D mask."""
    p = _pattern(table)
    value = [[0 if pad else 1 for pad in table.key_is_pad]]
    api, arguments, cannot, past = hf_rules(table, p)
    extra: list[str] = []
    if p.prefix is not None:
        # PaliGemma: token_type_ids == 0 marks the bidirectional prefix.
        arguments["token_type_ids"] = [0 if k < p.prefix else 1 for k in range(cols)]
        overlay = [[ok or (k < p.prefix and not table.key_is_pad[k]) for k, ok in enumerate(row)] for row in api]
        if past == 0:
            api = overlay
        elif overlay != api:
            # PaliGemmaModel hands token_type_ids to the mask only on the first
            # iteration (empty cache or pixel_values): with a cache, plain causal.
            r, k = next((r, k) for r, row in enumerate(overlay) for k, ok in enumerate(row) if ok != api[r][k])
            ids = ", ".join("0" if k < p.prefix else "-1" for k in range(cols))
            extra.append(t("explore.lens.limit.hf.prefix_cache", lang, past=past, q=past + r, k=k, ids=ids,
                           prefix=p.prefix))
    if p.documents is not None:
        arguments["position_ids"] = list(table.key_position_ids)
        if past == 0 and not any(table.key_is_pad):
            # Detected from position_ids only when attention_mask is None and there is no cache.
            arguments["attention_mask"] = None
            doc = document_of(p.documents)  # HF's packed_sequence_mask_function: same document
            api = _and(api, [[doc[k] == doc[q] for k in range(cols)] for q in table.query_positions])
        else:
            cannot.append("documents")
    if p.tree is not None:
        cannot.append("tree")
    if p.sinks is not None:
        cannot.append("sinks")  # masking_utils has no sink keys (gpt-oss's sinks are a learned logit, not keys)
    api = hf_finish(table, p, api, arguments, past)
    return _entry(
        table, "hf", lang, api,
        api="transformers (attention_mask)", argument="attention_mask", dtype="int",
        shape=[1, cols], meaning=meaning, value=value, arguments=arguments,
        limits=(_not_last_rows(table, lang) if p.slots_from is None else []) + extra + _limits("hf", cannot, lang),
        # eager: the softmax runs in float32; finfo(float64).min becomes
        # -inf there, so only float64 gives NaN (checked, torch 2.13).
        empty_row=[*_empty(lang, ("hf_eager", "uniform", "checked")), _float16_empty(table, api, scores, lang),
                   *_empty(lang, ("hf_eager_f64", "nan", "checked"), ("hf_sdpa", "zeros", "checked"))],
    )


def _not_last_rows(table: VisibilityTable, lang: str) -> list[str]:
    """HF and FlashAttention put the L queries at the last L positions
    (bottom-right); F12 step 4's query at 1 over keys 0-2 is not there."""
    rows, cols = len(table.query_positions), len(table.key_positions)
    if tuple(table.query_positions) == tuple(range(cols - rows, cols)):
        return []
    positions = ", ".join(str(p) for p in table.query_positions)
    last = ", ".join(str(p) for p in range(cols - rows, cols))
    return [t("explore.lens.limit.not_last_rows", lang, positions=positions, last=last)]


def _float16_empty(table: VisibilityTable, api: BoolRows, scores, lang: str) -> dict:
    """eager float16 (explore.lens_float16): uniform only for small scores,
    so the claim is computed for the rows' own scores when they are known:
    the empty rows, or every row if none is empty (had it been)."""
    path = t("explore.lens.path.hf_eager_f16", lang)
    if scores is None:
        return {"path": path, "policy": "uniform", "evidence": "checked",
                "text": t("explore.lens.empty.hf_eager_f16", lang)}
    rows = [r for r, row in enumerate(api) if not any(row)] or list(range(len(api)))
    policy, row, weights = float16_verdict(rows, scores)
    if row is None:
        return {"path": path, "policy": policy, "evidence": "checked",
                "text": t("explore.lens.empty.hf_eager_f16.uniform", lang)}
    q = table.query_positions[row]
    params = dict(q=q, scores=_numbers(scores[row]), weights=_numbers(weights) if weights is not None else "NaN")
    kind = "nan" if weights is None else "scores"
    return {"path": path, "policy": policy, "evidence": "checked",
            "text": t(f"explore.lens.empty.hf_eager_f16.{kind}", lang, **params),
            "example": {"row": row, "query": q, "scores": list(scores[row]), "weights": weights}}


def _numbers(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{v:.4g}" for v in values) + "]"


def model_scores(result) -> list[list[float]]:
    """The scores a model would see for this AttentionResult: q.k * scale / T."""
    return [[s / result.temperature for s in row] for row in result.scores]


def _flash(table: VisibilityTable, lang: str, meaning: str, rows: int, cols: int) -> dict:
    """flash_attn_func(causal, window_size=(left, right)) or, for packed
    documents, flash_attn_varlen_func's cu_seqlens (explore.lens_flash); the
    table is what those arguments make FlashAttention compute."""
    api, arguments, cannot = flash_spelling(table)
    api_table, top_left_table = flash_tables(table, arguments)
    flag = table.causal
    companion = {
        "argument": "causal (flash-attn 2.0)",
        "dtype": "flag",
        "shape": [],
        "meaning": t("explore.lens.meaning.flash_2_0", lang),
        "value": flag,
        "table": top_left_table,
    }
    path = "flash_varlen" if "cu_seqlens_k" in arguments else "flash"
    return _entry(
        table, "flash", lang, api_table,
        api=api, argument="causal", dtype="flag", shape=[],
        meaning=meaning, value=flag, companion=companion, arguments=arguments,
        limits=_not_last_rows(table, lang) + _limits("flash", cannot, lang),
        empty_row=_empty(lang, (path, "zeros", "doc")),
    )


def lenses(table: VisibilityTable, names: str | Sequence[str] = ALL, lang: str = "en",
           scores: Sequence[Sequence[float]] | None = None) -> list[dict]:
    """Several lenses at once: `names` as accepted by parse_lens_names."""
    return [lens(table, name, lang, scores) for name in parse_lens_names(names)]
