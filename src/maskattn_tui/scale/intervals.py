"""A rule's visible keys, row by row, as runs of keys [lo, hi] (inclusive),
never as cells.

Every rule but a draft tree gives a row one run (doctor.rules.Rule.intervals:
causal with a cache offset, PAD, window, chunk, prefix-LM, documents and
their combinations), so Q rows cost O(Q) numbers whatever the key count. A
tree's rows are not one run: they are read from the tree rule's own cells,
rows x keys booleans in bands (trees are at most doctor.rules.TREE_MAX rows),
then cut into runs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.representation import band_rows
from maskattn_tui.doctor.rules import Rule, causal_last


@dataclass(frozen=True)
class Runs:
    """Runs of visible keys: run i covers keys lo[i]..hi[i] of query row
    row[i]. Rows ascend; a row's runs are disjoint, not touching, ascending;
    a row with no run sees nothing."""

    rows: int
    keys: int
    row: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    def of_row(self, r: int) -> list[tuple[int, int]]:
        a, b = np.searchsorted(self.row, [r, r + 1])
        return [(int(x), int(y)) for x, y in zip(self.lo[a:b], self.hi[a:b])]

    def visible(self) -> int:
        """Visible cells of the whole table."""
        return int((self.hi - self.lo + 1).sum())

    def band(self, r0: int, r1: int, k0: int, k1: int) -> np.ndarray:
        """The cells of rows r0..r1-1 x keys k0..k1-1 (True = visible): a tile."""
        out = np.zeros((r1 - r0, k1 - k0), dtype=bool)
        a, b = np.searchsorted(self.row, [r0, r1])
        for r, lo, hi in zip(self.row[a:b], self.lo[a:b], self.hi[a:b]):
            x, y = max(int(lo), k0), min(int(hi), k1 - 1)
            if x <= y:
                out[r - r0, x - k0: y - k0 + 1] = True
        return out


def runs_of_table(allowed: np.ndarray, first_row: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, lo, hi) of the runs of True in a 2-D bool band."""
    n, keys = allowed.shape
    edges = np.zeros((n, keys + 2), dtype=np.int8)
    edges[:, 1:-1] = allowed
    step = np.diff(edges, axis=1)
    r_start, starts = np.nonzero(step == 1)
    _, stops = np.nonzero(step == -1)
    return r_start.astype(np.int64) + first_row, starts.astype(np.int64), stops.astype(np.int64) - 1


def _sink_spans(rule: Rule) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Causal sinks (one leading global run) beside a window or chunks: per
    row the sink run and the rule's own run, so 131,072 rows stay O(rows)."""
    if not rule.causal or len(rule.globals) != 1 or rule.pad_rows:
        return None
    spans = rule.replace(globals=()).intervals()
    if spans is None:
        return None
    lo, hi = spans
    (a, b), = rule.globals
    p = rule.positions(slice(None))
    s_lo = np.full_like(p, max(a, rule.pad) if rule.pad_side == "left" else a)
    s_hi = np.minimum(causal_last(p, rule.keys), b - 1)
    if rule.pad and rule.pad_side == "right":
        s_hi = np.minimum(s_hi, rule.keys - rule.pad - 1)
    return s_lo, s_hi, lo, hi


def rule_runs(rule: Rule) -> Runs:
    """The runs of `rule`'s table (see the module's note on trees)."""
    sinks = _sink_spans(rule)
    if sinks is not None:
        s_lo, s_hi, lo, hi = sinks
        apart = (s_lo <= s_hi) & (lo <= hi) & (s_hi + 1 < lo)  # two runs in the row
        one_lo = np.where(s_lo <= s_hi, np.where(lo <= hi, np.minimum(s_lo, lo), s_lo), lo)
        one_hi = np.where(lo <= hi, np.where(s_lo <= s_hi, np.maximum(s_hi, hi), hi), s_hi)
        rows = np.arange(rule.rows, dtype=np.int64)
        first_lo = np.where(apart, s_lo, one_lo)
        first_hi = np.where(apart, s_hi, one_hi)
        keep = first_lo <= first_hi
        row = np.concatenate((rows[keep], rows[apart]))
        order = np.argsort(row, kind="stable")  # a row's sink run, then its window run
        return Runs(rule.rows, rule.keys, row[order], np.concatenate((first_lo[keep], lo[apart]))[order].astype(np.int64),
                    np.concatenate((first_hi[keep], hi[apart]))[order].astype(np.int64))
    spans = rule.intervals()
    if spans is not None:
        lo, hi = spans
        keep = lo <= hi
        return Runs(rule.rows, rule.keys, np.flatnonzero(keep).astype(np.int64), lo[keep].astype(np.int64),
                    hi[keep].astype(np.int64))
    parts = []
    step = band_rows(rule.rows, rule.keys)
    for r0 in range(0, rule.rows, step):
        r1 = min(rule.rows, r0 + step)
        parts.append(runs_of_table(rule.table_rows(slice(r0, r1)), r0))
    row, lo, hi = (np.concatenate([p[i] for p in parts]) for i in range(3))
    return Runs(rule.rows, rule.keys, row, lo, hi)
