"""A block overview of a mask, the way FlexAttention's BlockMask sees it:
per (query block, key block) tile 0 = empty (no visible cell), 1 = partial,
2 = full. Streams over bands of query blocks (a memmap is read once)."""

from __future__ import annotations

import numpy as np

from maskattn_tui.doctor.representation import BAND_CELLS, Reading, classify

EMPTY, PARTIAL, FULL = 0, 1, 2


def block_overview(mask, block: int, polarity: str = "attend") -> np.ndarray:
    """(ceil(L/block), ceil(S/block)) uint8 of EMPTY/PARTIAL/FULL. `mask` is
    any 2-D mask (bool, 0/1, additive...), read True/1/0.0 = attend unless
    polarity="blocked"; `block` an int or (query block, key block)."""
    mask = np.asarray(mask) if not isinstance(mask, np.ndarray) else mask
    qb, kb = (block, block) if isinstance(block, int) else block
    if qb < 1 or kb < 1:
        raise ValueError("block must be at least 1")
    reading = Reading(mask, classify(mask), polarity)
    rows, keys = mask.shape
    n_q, n_k = -(-rows // qb), -(-keys // kb)
    out = np.empty((n_q, n_k), dtype=np.uint8)
    width = n_k * kb
    col_size = np.minimum(kb, keys - np.arange(n_k) * kb)
    band_blocks = max(1, BAND_CELLS // max(1, qb * width))
    for b0 in range(0, n_q, band_blocks):
        b1 = min(n_q, b0 + band_blocks)
        r0, r1 = b0 * qb, min(rows, b1 * qb)
        tile = np.zeros(((b1 - b0) * qb, width), dtype=np.uint8)
        tile[: r1 - r0, :keys] = reading.band(r0, r1)
        counts = tile.reshape(b1 - b0, qb, n_k, kb).sum(axis=(1, 3), dtype=np.int64)
        row_size = np.minimum(qb, rows - np.arange(b0, b1) * qb)
        area = row_size[:, None] * col_size[None, :]
        out[b0:b1] = np.where(counts == 0, EMPTY, np.where(counts == area, FULL, PARTIAL))
    return out
