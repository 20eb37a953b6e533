"""A self-contained FlexAttention `mask_mod` for a visibility table, as
Python source a user can paste (torch and literals only).

FlexAttention calls `mask_mod(b, h, q_idx, kv_idx)` with LOCAL indices:
`create_block_mask(mask_mod, 1, 1, new, past + new)` gives q_idx in
0..new-1 and kv_idx in 0..past+new-1, and True means "may attend"
(../shared/MASK-PATTERNS.md 1.1). So the source adds the cache offset
itself: the query's absolute position is PAST + q_idx. Constants are
literal tensors indexed by kv_idx / q_idx, which FlexAttention's vmap
accepts; the rules use only comparisons, &, | and //, so the same text
also runs on plain ints (the tests execute it that way)."""

from __future__ import annotations

from maskattn_tui.engine.rules import Pattern, document_of


def _bools(values) -> str:
    return "[" + ", ".join("True" if v else "False" for v in values) + "]"


def _ints(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def mask_mod_source(past: int, new: int, key_is_pad, pattern: Pattern, allowed=None) -> str:
    """The source of `mask_mod` reproducing the table of this layout.
    `allowed` (the table, True = may read) is needed only for a draft tree,
    whose visibility is spelled out as a literal new x (past + new) table."""
    lines = ["import torch", "", f"PAST = {past}  # cached keys: query q_idx sits at absolute position PAST + q_idx"]
    body = ["    q = PAST + q_idx"]
    if pattern.tree is not None:
        rows = ",\n    ".join(_bools(row) for row in allowed)
        lines.append("# VISIBLE[q_idx, kv_idx]: a committed key, an ancestor of the draft node, or itself")
        lines.append(f"VISIBLE = torch.tensor([\n    {rows},\n])")
        body.append("    allowed = VISIBLE[q_idx, kv_idx]")
    elif pattern.causal and pattern.prefix is not None:
        lines.append(f"PREFIX = {pattern.prefix}  # keys before it are visible to every query")
        body.append("    allowed = (kv_idx <= q) | (kv_idx < PREFIX)")
    elif pattern.causal:
        body.append("    allowed = kv_idx <= q  # causal, bottom-right: absolute positions")
    else:
        body.append("    allowed = kv_idx >= 0  # no causal rule")
    if pattern.window is not None:
        lines.append(f"WINDOW = {pattern.window}  # keys including the query itself (Hugging Face's sliding_window)")
        body.append("    allowed = allowed & (kv_idx > q - WINDOW)")
    if pattern.chunk is not None:
        lines.append(f"CHUNK = {pattern.chunk}")
        lines.append(f"ORIGIN = {pattern.chunk_origin}  # chunks are counted from the first real token")
        body.append("    allowed = allowed & ((kv_idx - ORIGIN) // CHUNK == (q - ORIGIN) // CHUNK)")
    if pattern.documents is not None:
        lines.append(f"DOC = torch.tensor({_ints(document_of(pattern.documents))})  # document of each position")
        body.append("    allowed = allowed & (DOC[kv_idx] == DOC[q])")
    if any(key_is_pad):
        lines.append(f"REAL = torch.tensor({_bools(not p for p in key_is_pad)})  # False = a PAD key")
        body.append("    allowed = allowed & REAL[kv_idx]")
    lines += ["", "", "def mask_mod(b, h, q_idx, kv_idx):", *body, "    return allowed", "",
              f"# block_mask = create_block_mask(mask_mod, 1, 1, {new}, {past + new}, device=\"cpu\")"]
    return "\n".join(lines) + "\n"
