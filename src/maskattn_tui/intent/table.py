"""What a layer's mask is meant to be, and the table that intent gives.

The rules are those of transformers' ``masking_utils`` (5.24), written once
in numpy so that the doctor and capture can check a mask without importing
torch: every cell is computed from absolute positions, as the library's mask
functions are (``q_idx + q_offset``, ``kv_idx + kv_offset``), never from the
row and column numbers of the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.explore.mask_params import MaskParams

# The rules a layer can be meant to follow. "cross" is bidirectional over
# encoder keys: a separate name because its table is Q x K with Q != K and the
# doctor must never read its rows as a decoder's (no causal rule there).
KINDS = ("causal", "sliding", "chunked", "bidirectional", "bidirectional_sliding", "cross")


@dataclass(frozen=True)
class LayerIntent:
    """What one layer's mask is meant to be.

    ``window`` for "sliding" is HF's ``sliding_window``: the keys a query sees
    include itself, ``q - window < k <= q``. For "bidirectional_sliding" it is
    the half-width of ``create_bidirectional_sliding_window_mask``:
    ``|q - k| <= window``. ``chunk`` is ``attention_chunk_size``: a query sees
    the earlier keys of its own chunk of absolute positions (counted from the
    first real token, as ``chunked_overlay`` counts past left padding).
    ``source`` says where the intent was read (a config field, a builder).
    ``window_bounds_groups``: Gemma 3 builds its sliding layers as
    AND(window, OR(causal, block)), so an image block is cut by the window;
    masking_utils' own ``block_sequence_ids`` gives OR(window ∧ causal, block).
    """

    kind: str
    window: int | None = None
    chunk: int | None = None
    source: str = ""
    window_bounds_groups: bool = False

    def __post_init__(self) -> None:
        # A programming error, not user input: callers derive intents from
        # configs and must map unknown layer types to "not derivable" first.
        if self.kind not in KINDS:
            raise ValueError(f"unknown intent kind {self.kind!r}")
        if self.kind in ("sliding", "bidirectional_sliding") and (self.window is None or self.window < 0):
            raise ValueError(f"{self.kind} needs a window >= 0")
        if self.kind == "chunked" and (self.chunk is None or self.chunk < 1):
            raise ValueError("chunked needs a chunk >= 1")

    @property
    def params(self) -> MaskParams:
        """The intent as the one rule record (its rule fields only: the
        positions come from the call), so a window is spelled as --expect
        and the explorer spell it (MaskParams.window_keys / window_after)."""
        sliding = self.kind in ("sliding", "bidirectional_sliding")
        return MaskParams(causal=self.kind in ("causal", "sliding", "chunked"),
                          window=self.window if sliding else None,
                          chunk=self.chunk if self.kind == "chunked" else None)


def token_groups(token_type_ids) -> np.ndarray:
    """Image blocks from token types as Gemma 3 finds them
    (get_block_sequence_ids_for_mask): each run of type-1 tokens is one
    group, numbered from 0; every other token -1."""
    image = np.asarray(token_type_ids, dtype=np.int64).reshape(-1) == 1
    starts = image & ~np.concatenate(([False], image[:-1]))
    return np.where(image, np.cumsum(starts) - 1, -1)


def _at(ids: np.ndarray | None, pos: np.ndarray) -> np.ndarray | None:
    """Per-position ids looked up at absolute positions; outside -> -1 (as
    ``maybe_pad_block_sequence_ids`` pads with -1)."""
    if ids is None:
        return None
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    inside = (pos >= 0) & (pos < ids.size)
    return np.where(inside, ids[np.clip(pos, 0, max(ids.size - 1, 0))] if ids.size else -1, -1)


def _packed(position_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Document ids and in-document positions as ``find_packed_sequence_indices``
    and ``remap_positions_for_packed_sequence`` see them: a new document
    wherever the position id does not grow by exactly 1."""
    ids = np.asarray(position_ids, dtype=np.int64).reshape(-1)
    diff = np.diff(ids, prepend=ids[:1] - 1)
    return np.cumsum(diff != 1), ids


def _local(intent: LayerIntent, q: np.ndarray, k: np.ndarray, left_padding: int) -> np.ndarray | None:
    """The window or chunk overlay of the intent, None when it has none."""
    rule = intent.params
    if rule.window is not None:  # HF's sliding_window (W keys incl. self), or |q - k| <= W two-sided
        local = k > q - rule.window_keys
        return local if rule.window_after is None else local & (k <= q + rule.window_after)
    if rule.chunk is not None:
        # floor division on both sides, as torch's // on integer tensors
        return (k - left_padding) // rule.chunk == (q - left_padding) // rule.chunk
    return None


def intended_table(
    intent: LayerIntent,
    q_pos,
    k_pos,
    *,
    key_valid=None,
    groups=None,
    left_padding: int = 0,
    position_ids=None,
) -> np.ndarray:
    """The bool table [Q, K] (True = visible) that ``intent`` gives.

    ``q_pos``: the absolute position of each query. ``k_pos``: the absolute
    position held by each key slot, or -1 for an unused slot (never visible).
    ``key_valid``: per key slot, False = PAD (``padding_mask_function``).
    ``groups``: per absolute position, a group id (image / token-type blocks,
    bidirectional within a group; -1 = none), as ``blockwise_overlay``.
    ``left_padding``: the PAD tokens before the first real one, which shift
    the chunk boundaries. ``position_ids``: per absolute position, when the
    library found packed documents in them (no attention_mask, no cache): the
    rule is then read on those ids and a query sees only its own document.
    """
    q = np.asarray(q_pos, dtype=np.int64).reshape(-1)[:, None]
    k = np.asarray(k_pos, dtype=np.int64).reshape(-1)[None, :]
    used = k >= 0
    rq, rk = q, k
    same_doc = None
    if position_ids is not None:
        docs, ids = _packed(position_ids)
        rq, rk = _at(ids, q), _at(ids, k)
        same_doc = _at(docs, q) == _at(docs, k)
    directed = intent.params.causal
    base = rk <= rq if directed else np.ones((q.shape[0], k.shape[1]), dtype=bool)
    local = _local(intent, rq, rk, left_padding)
    block = None
    if groups is not None:
        gq, gk = _at(groups, q), _at(groups, k)
        block = (gq == gk) & (gq >= 0)
    if local is not None and not (intent.window_bounds_groups and block is not None):
        base = base & local
    if block is not None:
        base = base | block
        if local is not None and intent.window_bounds_groups:
            base = base & local
    if same_doc is not None:
        base = base & same_doc
    table = np.broadcast_to(base & used, (q.shape[0], k.shape[1])).copy()
    if key_valid is not None:
        valid = np.asarray(key_valid, dtype=bool).reshape(-1)
        if valid.size != table.shape[1]:
            raise ValueError(f"key_valid has {valid.size} entries for {table.shape[1]} key slots")
        table &= valid[None, :]
    return table
