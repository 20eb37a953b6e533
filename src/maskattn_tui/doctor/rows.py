"""Per-row statistics of a mask, gathered in one streaming pass: for each
query row its first and last visible key and how many keys it sees. When a
row's visible keys are one contiguous run these three numbers describe the
row completely, which is what lets 16k x 16k masks be diagnosed quickly."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.representation import Reading, band_rows


@dataclass(frozen=True)
class RowStats:
    lo: np.ndarray  # first visible key (0 for an empty row)
    hi: np.ndarray  # last visible key (-1 for an empty row)
    count: np.ndarray  # visible keys
    keys: int

    @property
    def empty(self) -> np.ndarray:
        return self.count == 0

    @property
    def contiguous(self) -> np.ndarray:
        """Rows whose visible keys are one run (an empty row counts)."""
        return self.empty | (self.count == self.hi - self.lo + 1)


def row_runs_of(allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's first and last visible key and its count of visible keys
    (an empty row: lo 0, hi -1)."""
    keys = allowed.shape[1]
    count = allowed.view(np.uint8).sum(axis=1, dtype=np.int64)
    lo = np.argmax(allowed, axis=1).astype(np.int64)
    hi = keys - 1 - np.argmax(allowed[:, ::-1], axis=1).astype(np.int64)
    empty = count == 0
    lo[empty], hi[empty] = 0, -1
    return lo, hi, count


def scan(reading: Reading) -> RowStats:
    """Row statistics of `reading` (one pass over the mask)."""
    n = reading.rows
    lo, hi, count = (np.empty(n, dtype=np.int64) for _ in range(3))
    for r0, r1, band in reading.bands():
        lo[r0:r1], hi[r0:r1], count[r0:r1] = row_runs_of(np.ascontiguousarray(band))
    return RowStats(lo, hi, count, reading.keys)


def inverted(stats: RowStats, flipped: Reading) -> RowStats:
    """The statistics of the negated mask, from `stats` where a row is one
    run (its complement is then known), re-reading only the other rows."""
    keys, last = stats.keys, stats.keys - 1
    lo, hi, count = stats.lo, stats.hi, stats.count
    n_lo = np.zeros_like(lo)
    n_hi = np.full_like(hi, last)
    n_count = keys - count
    full = count == keys
    n_lo[full], n_hi[full] = 0, -1
    # a run [0, hi] leaves [hi+1, last]; a run [lo, last] leaves [0, lo-1]
    starts_at_0 = ~full & (count > 0) & (lo == 0) & stats.contiguous
    ends_at_last = ~full & (count > 0) & (hi == last) & stats.contiguous
    n_lo[starts_at_0] = hi[starts_at_0] + 1
    n_hi[ends_at_last] = lo[ends_at_last] - 1
    # rows that are not one run: the first and last hidden key are unknown
    unknown = np.flatnonzero(~stats.contiguous)
    step = band_rows(len(unknown), keys)
    for i in range(0, len(unknown), step):
        index = unknown[i: i + step]
        n_lo[index], n_hi[index], _ = row_runs_of(flipped.rows_at(index))
    return RowStats(n_lo, n_hi, n_count, keys)


def column_counts(stats: RowStats, reading: Reading) -> np.ndarray:
    """Per key: how many rows see it (a difference array over the rows that
    are one run, re-reading only the others). The negated reading sees a
    key exactly where this is below the row count: both polarities' visible
    columns from one reading."""
    keys = stats.keys
    runs = stats.contiguous & ~stats.empty
    delta = np.zeros(keys + 1, dtype=np.int64)
    np.add.at(delta, stats.lo[runs], 1)
    np.add.at(delta, stats.hi[runs] + 1, -1)
    counts = np.cumsum(delta[:-1])
    others = np.flatnonzero(~stats.contiguous)
    step = band_rows(len(others), keys)
    for i in range(0, len(others), step):
        counts += reading.rows_at(others[i: i + step]).sum(axis=0, dtype=np.int64)
    return counts


def last_rows(stats: RowStats, reading: Reading) -> np.ndarray:
    """Per key: the last row that sees it (-1 if none). For rows that are
    one run, each run [lo, hi] puts its row into the O(log keys) nodes of a
    segment tree covering it, keeping the largest, and the tree is pushed
    down to its leaves; only rows that are not one run are read again."""
    keys = stats.keys
    size = 1 << max(0, (keys - 1).bit_length())
    tree = np.full(2 * size, -1, dtype=np.int64)
    runs = np.flatnonzero(stats.contiguous & ~stats.empty)
    left, right, row = stats.lo[runs] + size, stats.hi[runs] + 1 + size, runs.astype(np.int64)
    while left.size:
        odd = (left & 1) == 1
        np.maximum.at(tree, left[odd], row[odd])
        left = left + odd
        odd = (right & 1) == 1
        right = right - odd
        np.maximum.at(tree, right[odd], row[odd])
        left, right = left >> 1, right >> 1
        keep = left < right
        left, right, row = left[keep], right[keep], row[keep]
    start = 1
    while start < size:  # push down, one level at a time
        parents = tree[start: 2 * start]
        for child in (2 * start, 2 * start + 1):
            tree[child: 4 * start: 2] = np.maximum(tree[child: 4 * start: 2], parents)
        start *= 2
    out = tree[size: size + keys].copy()
    others = np.flatnonzero(~stats.contiguous)
    step = band_rows(len(others), keys)
    for i in range(0, len(others), step):
        index = others[i: i + step]
        band = reading.rows_at(index)
        seen = band.any(axis=0)
        last = index[band.shape[0] - 1 - np.argmax(band[::-1], axis=0)]
        out[seen] = np.maximum(out[seen], last[seen])
    return out
