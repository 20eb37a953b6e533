"""A block overview of a mask, the way FlexAttention's BlockMask sees it:
per (query block, key block) tile 0 = empty (no visible cell), 1 = partial,
2 = full. Streams over bands of query blocks (a memmap is read once).

`tile_counts` (visible cells per tile of one band) and `categories` are
shared with the TUI's block overview (maskmode.tables), which counts
the user's table, the rule's and their differences in one pass."""

from __future__ import annotations

import numpy as np

from maskattn_tui.doctor.representation import BAND_CELLS, Reading, classify

EMPTY, PARTIAL, FULL = 0, 1, 2


def tile_counts(band: np.ndarray, qb: int, kb: int) -> np.ndarray:
    """True cells per (qb x kb) tile of a 2-D bool `band` (its last tiles
    may be short): int64 (ceil(rows/qb), ceil(keys/kb))."""
    rows, keys = band.shape
    n_q, n_k = -(-rows // qb), -(-keys // kb)
    cells = band.view(np.uint8) if band.dtype == np.bool_ else band.astype(np.uint8)
    if rows != n_q * qb or keys != n_k * kb:
        padded = np.zeros((n_q * qb, n_k * kb), dtype=np.uint8)
        padded[:rows, :keys] = cells
        cells = padded
    # Rows first (adds whole contiguous lines), then runs of kb keys.
    dtype = np.uint16 if qb * kb < 1 << 16 else np.int64
    per_rows = np.add.reduce(cells.reshape(n_q, qb, n_k * kb), axis=1, dtype=dtype)
    return per_rows.reshape(n_q, n_k, kb).sum(axis=2, dtype=np.int64)


def tile_sizes(total: int, size: int) -> np.ndarray:
    """The length of each of the ceil(total/size) tiles along one axis."""
    return np.minimum(size, total - np.arange(-(-total // size)) * size)


def categories(counts: np.ndarray, row_size: np.ndarray, col_size: np.ndarray) -> np.ndarray:
    """EMPTY / PARTIAL / FULL from visible counts and the tiles' sizes."""
    area = row_size[:, None].astype(np.int64) * col_size[None, :]
    return np.where(counts == 0, EMPTY, np.where(counts == area, FULL, PARTIAL)).astype(np.uint8)


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
    col_size = tile_sizes(keys, kb)
    band_blocks = max(1, BAND_CELLS // max(1, qb * n_k * kb))
    for b0 in range(0, n_q, band_blocks):
        b1 = min(n_q, b0 + band_blocks)
        r0, r1 = b0 * qb, min(rows, b1 * qb)
        counts = tile_counts(reading.band(r0, r1), qb, kb)
        out[b0:b1] = categories(counts, np.minimum(qb, rows - np.arange(b0, b1) * qb), col_size)
    return out
