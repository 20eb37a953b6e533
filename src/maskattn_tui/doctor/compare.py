"""Where a mask differs from a rule's table: how many cells, the first few
(row-major), and which of them are *leaks* (visible future keys the rule
hides). Rows that are one run of keys in both are compared by arithmetic
on (first, last); the others are read and compared cell by cell."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.representation import Reading, band_rows
from maskattn_tui.doctor.rows import RowStats

#: How many cells a finding lists (the count says how many there are).
CELL_LIMIT = 20


@dataclass(frozen=True)
class Comparison:
    count: int
    cells: tuple[tuple[int, int], ...]
    leak_count: int
    leaks: tuple[tuple[int, int], ...]


def _overlap(a_lo, a_hi, b_lo, b_hi) -> np.ndarray:
    return np.maximum(0, np.minimum(a_hi, b_hi) - np.maximum(a_lo, b_lo) + 1)


def _size(lo, hi) -> np.ndarray:
    return np.maximum(0, hi - lo + 1)


def _minus(a: int, b: int, c: int, d: int) -> list[tuple[int, int]]:
    """Keys of [a, b] outside [c, d], as at most two runs."""
    if c > d:
        return [(a, b)] if a <= b else []
    return [(x, y) for x, y in ((a, min(b, c - 1)), (max(a, d + 1), b)) if x <= y]


def _cells_of(row: int, ranges: list[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    out: list = []
    for x, y in sorted(ranges):
        out.extend((row, k) for k in range(x, min(y, x + limit - len(out) - 1) + 1))
        if len(out) >= limit:
            break
    return out


class _Found:
    """Cells of interest, kept in row-major order, at most `limit`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.by_row: dict[int, list] = {}

    def add(self, row: int, cells: list) -> None:
        if cells:
            self.by_row[row] = cells[: self.limit]

    def first(self) -> tuple[tuple[int, int], ...]:
        out: list = []
        for row in sorted(self.by_row):
            out.extend(self.by_row[row])
            if len(out) >= self.limit:
                break
        return tuple((int(r), int(k)) for r, k in out[: self.limit])


def compare(reading: Reading, stats: RowStats | None, rule, limit: int = CELL_LIMIT) -> Comparison:
    """Compare `reading` (whose row statistics are `stats`) with `rule`,
    anything with `table_rows(rows)`, `positions(rows)`, `intervals()` and
    `causal`. Leaks are counted only for causal rules. `stats` may be None
    for a rule without intervals."""
    n = reading.rows
    causal = bool(getattr(rule, "causal", True)) or getattr(rule, "tree", None) is not None
    runs = rule.intervals()
    fast = stats.contiguous.copy() if runs is not None else np.zeros(n, dtype=bool)
    diff_rows = np.zeros(n, dtype=np.int64)
    leak_rows = np.zeros(n, dtype=np.int64)
    p = rule.positions(slice(None))
    if fast.any():
        e_lo, e_hi = runs
        lo, hi = stats.lo, stats.hi
        both = _overlap(lo, hi, e_lo, e_hi)
        diff_rows[fast] = (_size(lo, hi) + _size(e_lo, e_hi) - 2 * both)[fast]
        if causal:
            f_lo = np.maximum(lo, p + 1)  # the visible future part of the row
            leak_rows[fast] = (_size(f_lo, hi) - _overlap(f_lo, hi, e_lo, e_hi))[fast]
    found, leaks = _Found(limit), _Found(limit)
    slow = np.flatnonzero(~fast)
    step = band_rows(len(slow), reading.keys)
    keys = np.arange(reading.keys)[None, :]
    for i in range(0, len(slow), step):
        index = slow[i: i + step]
        got, want = reading.rows_at(index), rule.table_rows(index)
        diff = got != want
        diff_rows[index] = diff.sum(axis=1)
        leak = got & ~want & (keys > p[index][:, None]) if causal else np.zeros_like(diff)
        leak_rows[index] = leak.sum(axis=1)
        for store, cells in ((found, diff), (leaks, leak)):
            for j in np.flatnonzero(cells.any(axis=1))[:limit]:
                store.add(int(index[j]), [(int(index[j]), int(k)) for k in np.flatnonzero(cells[j])[:limit]])
    if runs is not None:
        e_lo, e_hi = runs
        for row in np.flatnonzero((diff_rows > 0) & fast)[:limit]:
            r, a, b, c, d = int(row), int(stats.lo[row]), int(stats.hi[row]), int(e_lo[row]), int(e_hi[row])
            found.add(r, _cells_of(r, _minus(a, b, c, d) + _minus(c, d, a, b), limit))
            if leak_rows[row]:
                leaks.add(r, _cells_of(r, _minus(max(a, int(p[row]) + 1), b, c, d), limit))
    return Comparison(int(diff_rows.sum()), found.first(), int(leak_rows.sum()), leaks.first())
