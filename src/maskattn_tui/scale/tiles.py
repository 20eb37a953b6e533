"""One pass over a mask_mod's table, tile by tile (memory: one tile, never
Q x K): visible cells per (Q-block, KV-block) - hence the block map
create_block_mask builds - and per query row its first and last visible key
and its count (doctor.rows.RowStats), from which the doctor reads the rule.

A tile is whole blocks: TILE_CELLS cells at most (about 2M: the user's
int64 index arithmetic on it is ~16 MB an operation)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.rows import RowStats
from maskattn_tui.scale.blocks import BlockMap, cdiv, from_sums

TILE_CELLS = 1 << 21


@dataclass(frozen=True)
class Scan:
    blocks: BlockMap
    stats: RowStats
    #: visible cells of the whole table
    visible: int
    #: visible cells per block (int64, the block map's shape)
    sums: np.ndarray


def tile_shape(q_block: int, kv_block: int, keys: int) -> tuple[int, int]:
    """(rows, keys) of a tile: whole blocks, at least 128 rows' worth."""
    rows = q_block * cdiv(128, q_block)
    per_row = max(kv_block, (TILE_CELLS // rows) // kv_block * kv_block)
    return rows, min(per_row, kv_block * cdiv(keys, kv_block))


def tiles(q_len: int, kv_len: int, shape: tuple[int, int]) -> Iterator[tuple[int, int, int, int]]:
    """(q0, q1, k0, k1) of every tile, row-major (cut at the table's edge)."""
    tq, tk = shape
    for q0 in range(0, q_len, tq):
        for k0 in range(0, kv_len, tk):
            yield q0, min(q_len, q0 + tq), k0, min(kv_len, k0 + tk)


def _padded(cells: np.ndarray, rows: int, cols: int) -> np.ndarray:
    if cells.shape == (rows, cols):
        return cells
    out = np.zeros((rows, cols), dtype=bool)
    out[: cells.shape[0], : cells.shape[1]] = cells
    return out


def scan(tile: Callable[[int, int, int, int], np.ndarray], q_len: int, kv_len: int, q_block: int,
         kv_block: int, progress: Callable[[int, int], None] | None = None) -> Scan:
    """Block sums and row statistics of the table `tile(q0, q1, k0, k1)`
    gives; `progress(done, total)` is told the rows done after each band."""
    n_q, n_k = cdiv(q_len, q_block), cdiv(kv_len, kv_block)
    sums = np.zeros((n_q, n_k), dtype=np.int64)
    lo = np.full(q_len, -1, dtype=np.int64)
    hi = np.full(q_len, -1, dtype=np.int64)
    count = np.zeros(q_len, dtype=np.int64)
    shape = tile_shape(q_block, kv_block, kv_len)
    acc = np.uint16 if kv_block < 1 << 16 else np.int64
    for q0, q1, k0, k1 in tiles(q_len, kv_len, shape):
        if progress is not None and k0 == 0:
            progress(q0, q_len)
        cells = np.ascontiguousarray(tile(q0, q1, k0, k1), dtype=bool)
        rows = q1 - q0
        nkb = cdiv(k1 - k0, kv_block)
        padded = _padded(cells, cdiv(rows, q_block) * q_block, nkb * kv_block)
        per_rb = np.add.reduce(padded.view(np.uint8).reshape(padded.shape[0], nkb, kv_block), axis=2, dtype=acc)
        b0, kb0 = q0 // q_block, k0 // kv_block
        sums[b0: b0 + padded.shape[0] // q_block, kb0: kb0 + nkb] += \
            per_rb.reshape(-1, q_block, nkb).sum(axis=1, dtype=np.int64)
        per_rb = per_rb[:rows]
        seen = per_rb > 0
        any_row = seen.any(axis=1)
        if not any_row.any():
            continue
        count[q0:q1] += per_rb.sum(axis=1, dtype=np.int64)
        rix = np.flatnonzero(any_row)
        span = np.arange(kv_block)
        first_b = np.argmax(seen[rix], axis=1)
        first = first_b * kv_block + np.argmax(padded[rix[:, None], first_b[:, None] * kv_block + span], axis=1)
        last_b = nkb - 1 - np.argmax(seen[rix, ::-1], axis=1)
        last = last_b * kv_block + kv_block - 1 \
            - np.argmax(padded[rix[:, None], last_b[:, None] * kv_block + span[::-1]], axis=1)
        unset = lo[q0 + rix] < 0
        lo[q0 + rix[unset]] = k0 + first[unset]
        hi[q0 + rix] = k0 + last
    empty = count == 0
    lo[empty], hi[empty] = 0, -1
    blocks = from_sums(sums, q_len, kv_len, q_block, kv_block)
    return Scan(blocks, RowStats(lo, hi, count, kv_len), int(count.sum()), sums)
