"""What each kind of attention call's arguments mean as tables: the slice
maps of SDPA's attn_mask (or the table is_causal stands for), of
multi_head_attention_forward's attn_mask, key_padding_mask and their
merge, and of a FlexAttention BlockMask (its mask_mod over the call's
cells, and where its block lists disagree with that)."""

from __future__ import annotations

import torch

from maskattn_tui.capture.encoding import encoded
from maskattn_tui.capture.store import MaskStore
from maskattn_tui.strict_json import Encoded

#: A mask_mod is evaluated over at most this many cells (batch x heads x
#: queries x keys; create_mask materialises them all).
FLEX_CELLS = 1 << 24
#: ... and for at most this many (batch, head) pairs.
FLEX_PAIRS = 64


def describe(tensor: torch.Tensor | None, values: bool = True) -> dict | None:
    """Shape, dtype, stride; with `values`, a float tensor's -inf and lowest
    finite value (a mask cut by the store gets them from its slices)."""
    if tensor is None:
        return None
    out = {"shape": list(tensor.shape), "dtype": str(tensor.dtype).removeprefix("torch."),
           "stride": list(tensor.stride())}
    if values and tensor.is_floating_point() and tensor.numel():
        # reductions, not a boolean index (which would copy a huge mask once more)
        low = tensor.detach().amin()
        out["neg_inf"] = bool(torch.isneginf(low))
        if out["neg_inf"]:
            low = tensor.detach().masked_fill(torch.isneginf(tensor), float("inf")).amin()
        out["min"] = float(low) if bool(torch.isfinite(low)) else None
    return out


#: padding_runs keeps the runs of this many batch rows at most
RUN_ROWS = 64


def padding_runs(padding: torch.Tensor) -> dict:
    """A 2-D padding mask ([batch, keys], 1 = a real token) as each row's
    runs of real tokens, [start, end) pairs: it grows by one key at every
    decode step, and a table file a step would cost more than the step
    (creating a file is ~0.15 ms on a journaled disk). Rows past RUN_ROWS
    are counted, not kept."""
    if padding.dim() != 2:
        return {"runs": None}
    runs = []
    # each run found by list.index (a scan in C): Python work per run, not per key; tolist() is the one
    # torch call (a torch or numpy op costs several microseconds inside a decode step, which builds this)
    head = padding if padding.shape[0] <= RUN_ROWS else padding[:RUN_ROWS]
    rows = (head if head.dtype == torch.bool else head != 0).tolist()
    for row in rows:
        found, at, size = [], 0, len(row)
        while at < size:
            try:
                start = row.index(True, at)
            except ValueError:
                break
            try:
                at = row.index(False, start)
            except ValueError:
                at = size
            found.append([start, at])
        runs.append(found)
    return {"runs": runs, "rows_left_out": max(0, padding.shape[0] - RUN_ROWS)}


def sdpa_mask(store: MaskStore, mask, is_causal: bool, rows: int, keys: int) -> Encoded:
    """attn_mask as given (True / 0.0 = attend), or the table is_causal
    means: torch's is_causal is top-left (query i sees keys 0..i) whatever
    the lengths, so a single query over a cache sees key 0 only. Made once
    per mask tensor version and call shape (every layer of a step shares
    it), or per shape for is_causal and no mask."""
    if mask is not None:
        return store.slices(mask, rows, keys, _given)
    kind = "is_causal" if is_causal else "none"
    known = store.fixed.get((kind, rows, keys))
    if known is None:
        table = torch.ones(rows, keys, dtype=torch.bool)
        head = {"from": "is_causal", "table": "top-left"} if is_causal else {"from": "none"}
        known = encoded({**head, "polarity": "attend", **_one(store.put(table.tril() if is_causal else table))})
        if len(store.fixed) > 256:
            store.fixed.clear()
        store.fixed[(kind, rows, keys)] = known
    return known


def _given(mask: torch.Tensor, slices: dict) -> Encoded:
    polarity = "attend" if mask.dtype == torch.bool else "additive"
    return encoded({"from": "attn_mask", "polarity": polarity, **describe(mask, values=False), **slices})


def _one(digest: str) -> dict:
    return {"batch": 1, "heads": 1, "hashes": [[digest]]}


def _additive(mask: torch.Tensor, dtype) -> torch.Tensor:
    """A bool mask (True = blocked, nn.MultiheadAttention's) as 0 / -inf."""
    if mask.dtype == torch.bool:
        return torch.zeros(mask.shape, dtype=dtype).masked_fill(mask, float("-inf"))
    return mask.to(dtype)


def mha_masks(store: MaskStore, attn_mask, key_padding_mask, batch: int, heads: int, rows: int, keys: int) -> dict:
    """F.multi_head_attention_forward's two masks and the merged table the
    softmax really sees (attn_mask per head + key_padding_mask per batch
    row); bool there means True = blocked."""
    out: dict = {}
    merged = torch.zeros(1, 1, rows, keys)
    if attn_mask is not None:
        out["attn_mask"] = {"polarity": "blocked" if attn_mask.dtype == torch.bool else "additive",
                            **describe(attn_mask)}
        add = _additive(attn_mask.detach().cpu(), torch.float32)
        add = add.reshape(batch, heads, rows, keys) if add.dim() == 3 else add
        merged = merged + add
    if key_padding_mask is not None:
        out["key_padding_mask"] = {"polarity": "blocked" if key_padding_mask.dtype == torch.bool else "additive",
                                   **describe(key_padding_mask),
                                   "hash": store.put(key_padding_mask.reshape(-1, keys))}
        kpm = _additive(key_padding_mask.detach().cpu(), torch.float32).reshape(-1, keys)
        merged = merged + kpm[:, None, None, :]
    out["merged"] = {"from": "merged", "polarity": "additive", **describe(merged, values=False),
                     **store.slices(merged, rows, keys)}
    return out


def flex_block_mask(store: MaskStore, parts: tuple, buffers: tuple, batch: int, heads: int, rows: int,
                    keys: int) -> dict:
    """BlockMask.as_tuple() of a flex_attention call: its sizes, the cell
    table of its mask_mod over this call's cells (what eager flex applies),
    and the cells where its block lists say otherwise (what compiled flex,
    which obeys the lists, would apply instead)."""
    q_len, kv_len, kv_num, kv_idx, full_num, full_idx = parts[:6]
    block = (int(parts[-3]), int(parts[-2]))
    mask_mod = parts[-1]
    out = {"seq_lengths": [int(q_len), int(kv_len)], "block_size": list(block),
           "block_batch": list(kv_num.shape[:-1]), "q_blocks": int(kv_num.shape[-1]),
           "kv_index_blocks": int(kv_idx.shape[-1]),
           "kv_blocks_total": int(kv_num.sum()) + (int(full_num.sum()) if full_num is not None else 0),
           "mask_mod": getattr(mask_mod, "__qualname__", None) or type(mask_mod).__name__,
           "identity": f"{kv_idx.data_ptr():x}:{tuple(kv_idx.shape)}"}
    pairs = [(b, h) for b in range(batch) for h in range(heads)]
    if len(pairs) > FLEX_PAIRS or len(pairs) * rows * keys > FLEX_CELLS:
        out["table_error"] = "too large"
        return out
    from torch.nn.attention.flex_attention import create_mask

    def evaluate(b, h, q_idx, kv_idx):
        return mask_mod(b, h, q_idx, kv_idx, *buffers)

    try:
        cells = create_mask(evaluate, batch, heads, rows, keys, device=kv_num.device).cpu()
    except Exception as exc:  # a mask_mod that cannot run outside its own context
        out["table_error"] = f"{type(exc).__name__}: {exc}"[:200]
        return out
    tables = cells.to(torch.bool)
    out.update({"from": "mask_mod", "polarity": "attend", **store.slices(tables, rows, keys)})
    lost = gained = 0
    lists = (kv_num, kv_idx, full_num, full_idx)
    for b, h in pairs:
        state = _block_states(lists, b, h, block, rows, keys)
        table = tables[b, h].numpy()
        lost += int((table & (state == 0)).sum())
        gained += int((~table & (state == 2)).sum())
    out["lists_lost"], out["lists_gained"] = lost, gained
    return out


def _block_states(lists: tuple, b: int, h: int, block: tuple[int, int], rows: int, keys: int):
    """Per cell: 0 in a block the lists skip, 1 partial (mask_mod decides), 2 full."""
    import numpy as np

    kv_num, kv_idx, full_num, full_idx = (None if x is None else x.cpu().numpy() for x in lists)
    b0, h0 = min(b, kv_num.shape[0] - 1), min(h, kv_num.shape[1] - 1)
    n_q, n_kv = -(-rows // block[0]), max(-(-keys // block[1]), kv_idx.shape[-1])
    grid = np.zeros((kv_num.shape[-1], n_kv), dtype=np.int8)
    for i in range(min(grid.shape[0], n_q)):
        grid[i, kv_idx[b0, h0, i, :kv_num[b0, h0, i]]] = 1
        if full_num is not None:
            grid[i, full_idx[b0, h0, i, :full_num[b0, h0, i]]] = 2
    cells = np.repeat(np.repeat(grid, block[0], axis=0), block[1], axis=1)
    out = np.zeros((rows, keys), dtype=np.int8)
    r, k = min(rows, cells.shape[0]), min(keys, cells.shape[1])
    out[:r, :k] = cells[:r, :k]
    return out
