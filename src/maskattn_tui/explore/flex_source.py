"""A self-contained FlexAttention `mask_mod` for a visibility table, as
Python source a user can paste (torch and literals only).

FlexAttention calls `mask_mod(b, h, q_idx, kv_idx)` with LOCAL indices:
`create_block_mask(mask_mod, 1, 1, new, past + new)` gives q_idx in
0..new-1 and kv_idx in 0..past+new-1, and True means "may attend"
(create_block_mask's docstring). So the source places each query at its
absolute position itself: PAST + q_idx when the queries are the last rows
(a KV cache), else a literal Q_POS tensor (F12 step 4: one query at 1 over
keys 0-2). Constants are literal tensors indexed by kv_idx / q_idx, which
FlexAttention's vmap accepts; the rules use only comparisons, &, | and //,
so the same text also runs on plain ints: `run_mask_mod` executes it that
way, so the lens's table is what the source does, not what it meant to do.
Comment lines are the reader's text (data/strings/explore_flex.json)."""

from __future__ import annotations

from collections.abc import Sequence

from maskattn_tui.engine.rules import Pattern, document_of
from maskattn_tui.i18n import t


def _bools(values) -> str:
    return "[" + ", ".join("True" if v else "False" for v in values) + "]"


def _ints(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def mask_mod_source(query_positions: Sequence[int], length: int, key_is_pad, pattern: Pattern,
                    allowed=None, lang: str = "en") -> str:
    """The source of `mask_mod` reproducing the table of these queries over
    keys 0..length-1. `allowed` (the table, True = may read) is needed only
    for a draft tree, whose visibility is spelled out as a literal table."""
    def c(key: str) -> str:
        return "  # " + t(f"explore.flex.comment.{key}", lang)

    new = len(query_positions)
    past = length - new
    lines = ["import torch", ""]
    if tuple(query_positions) == tuple(range(past, length)):
        lines.append(f"PAST = {past}" + c("past"))
        body = ["    q = PAST + q_idx"]
    else:
        lines.append(f"Q_POS = torch.tensor({_ints(query_positions)})" + c("q_pos"))
        body = ["    q = Q_POS[q_idx]"]
    if pattern.tree is not None:
        rows = ",\n    ".join(_bools(row) for row in allowed)
        lines.append("# " + t("explore.flex.comment.visible", lang))
        lines.append(f"VISIBLE = torch.tensor([\n    {rows},\n])")
        body.append("    allowed = VISIBLE[q_idx, kv_idx]")
    elif pattern.causal and pattern.prefix is not None:
        lines.append(f"PREFIX = {pattern.prefix}" + c("prefix"))
        body.append("    allowed = (kv_idx <= q) | (kv_idx < PREFIX)")
    elif pattern.causal:
        body.append("    allowed = kv_idx <= q" + c("causal"))
    else:
        body.append("    allowed = kv_idx >= 0" + c("no_causal"))
    if pattern.window is not None:
        lines.append(f"WINDOW = {pattern.window}" + c("window"))
        body.append("    allowed = allowed & (kv_idx > q - WINDOW)")
        if pattern.window_right is not None:
            lines.append(f"RIGHT = {pattern.window_right}" + c("right"))
            body.append("    allowed = allowed & (kv_idx <= q + RIGHT)")
    if pattern.chunk is not None:
        lines.append(f"CHUNK = {pattern.chunk}")
        lines.append(f"ORIGIN = {pattern.chunk_origin}" + c("origin"))
        body.append("    allowed = allowed & ((kv_idx - ORIGIN) // CHUNK == (q - ORIGIN) // CHUNK)")
    if pattern.sinks is not None:  # OR-ed over the window and chunks; the causal rule still holds
        lines.append(f"SINK_FROM = {pattern.chunk_origin}")
        lines.append(f"SINKS = {pattern.sinks}" + c("sinks"))
        body.append("    allowed = allowed | ((kv_idx >= SINK_FROM) & (kv_idx < SINK_FROM + SINKS) & (kv_idx <= q))")
    if pattern.documents is not None:
        lines.append(f"DOC = torch.tensor({_ints(document_of(pattern.documents))})" + c("doc"))
        body.append("    allowed = allowed & (DOC[kv_idx] == DOC[q])")
    if pattern.islands:  # OR-ed over the rules above, as HF's blockwise_overlay
        ids = [next((i for i, (a, b) in enumerate(pattern.islands) if a <= k < b), -1) for k in range(length)]
        lines.append(f"BLOCK = torch.tensor({_ints(ids)})" + c("block"))
        body.append("    allowed = allowed | ((BLOCK[kv_idx] == BLOCK[q]) & (BLOCK[q] >= 0))")
    if pattern.slots_from is not None:
        lines.append(f"FILLED = {pattern.slots_from}" + c("filled"))
        body.append("    allowed = allowed & (kv_idx < FILLED)")
    if any(key_is_pad):
        lines.append(f"REAL = torch.tensor({_bools(not p for p in key_is_pad)})" + c("real"))
        body.append("    allowed = allowed & REAL[kv_idx]")
    lines += ["", "", "def mask_mod(b, h, q_idx, kv_idx):", *body, "    return allowed", "",
              f"# block_mask = create_block_mask(mask_mod, 1, 1, {new}, {length}, device=\"cpu\")"]
    return "\n".join(lines) + "\n"


class _Literal:
    """What `torch.tensor(literal)` must do for the source on plain ints:
    index by an int or an (int, int) pair."""

    def __init__(self, data) -> None:
        self.data = data

    def __getitem__(self, index):
        value = self.data
        for i in index if isinstance(index, tuple) else (index,):
            value = value[i]
        return value


class _TensorOnly:
    tensor = _Literal


def _import(name, *args, **kwargs):
    if name != "torch":
        raise ImportError(name)
    return _TensorOnly


def run_mask_mod(source: str, new: int, length: int) -> list[list[bool]]:
    """The table `source`'s mask_mod gives, called as create_block_mask
    would call it (local indices), on plain ints. The source is ours
    (mask_mod_source over validated ints), never a user's; it runs with no
    builtins but an import that knows only `torch.tensor`."""
    namespace: dict = {"__builtins__": {"__import__": _import}}
    exec(compile(source, "<mask_mod>", "exec"), namespace)
    mod = namespace["mask_mod"]
    return [[bool(mod(0, 0, q, kv)) for kv in range(length)] for q in range(new)]
