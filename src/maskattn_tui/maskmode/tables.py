"""A diagnosed mask as the TUI reads it: the user's table and the inferred
rule's, cell by cell for a window of cells, and block by block for an
overview. Pure numpy (no Textual, no Rich).

    tables = MaskTables(mask, diagnose(mask))
    tables.reasons("user", r0, r1, c0, c1)   # uint8 codes, REASONS[i]
    tables.blocks(128)                       # BlockCounts, cached per size

Costs: a window of cells reads only that window of the mask (the rule's
rows come from its per-row intervals, computed once); the block counts are
made in one banded pass at BASE x BASE tiles, and every block size that is
a multiple of BASE is summed from them (cached), so changing the block
size never reads the mask again."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from maskattn_tui.doctor.blocks import EMPTY, FULL, PARTIAL, categories, tile_counts, tile_sizes
from maskattn_tui.doctor.representation import BAND_CELLS, Reading, raw_band
from maskattn_tui.doctor.rules import causal_last
from maskattn_tui.maskmode.block_stats import BlockStats

#: Reason codes of a cell (the grid's glyphs: render.palette).
REASONS = ("allowed", "future", "pad", "future+pad", "hidden")
ALLOWED, FUTURE, PAD, FUTURE_PAD, HIDDEN = range(5)
#: The block overview's codes, by EMPTY / PARTIAL / FULL.
BLOCK_REASONS = {EMPTY: "block.empty", PARTIAL: "block.partial", FULL: "block.full"}
#: The finest tiles counted in the one pass over the mask.
BASE = 8


@dataclass(frozen=True)
class BlockCounts:
    """Per block of `size` x `size` cells: visible cells in the user's
    table and in the rule's, cells where they differ, and the block's area."""

    size: int
    user: np.ndarray
    rule: np.ndarray
    differ: np.ndarray
    row_size: np.ndarray
    col_size: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.user.shape

    def category(self, which: str) -> np.ndarray:
        return categories(self.user if which == "user" else self.rule, self.row_size, self.col_size)


class Tables(ABC):
    """What mask mode reads of a document's two tables (the contract's
    `tables`): the user's and the rule's, cell by cell for a window and
    block by block. MaskTables holds a saved mask and its diagnosis,
    rule_tables.RuleTables a rule of any length; the reason codes, a
    query's PAD flag and the block statistics are written here, once."""

    rows: int
    keys: int
    #: the first query's position (the keys before it: a KV cache)
    offset: int
    #: the edge run of PAD keys, [a, b)
    pad_keys: tuple[int, int]
    #: every PAD key (the edge run and the runs between real keys), for the "P" reason
    pad: np.ndarray
    #: hidden cells in a query's future are "future" only under a causal reading
    causal: bool
    #: the least block size the overview offers (1: cells)
    least: int = 1
    #: the rule is aligned bottom-right to a top-left mask with a cache (MaskTables)
    realigned: bool = False

    @abstractmethod
    def user(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """The user's table (True = may read) for rows r0:r1, keys c0:c1."""

    @abstractmethod
    def rule_table(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """The rule's table for the window."""

    @abstractmethod
    def differs(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """Where the two tables disagree, for the window."""

    @abstractmethod
    def blocks(self, size: int) -> BlockCounts:
        """Counts per block of `size`, cached."""

    def table(self, which: str, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        return self.user(r0, r1, c0, c1) if which == "user" else self.rule_table(r0, r1, c0, c1)

    def reasons(self, which: str, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """Reason codes (indexes into REASONS): allowed, or why hidden: the
        key is in the query's future, a PAD key, both, or hidden otherwise
        (a window, a document, a chunk... or the user's choice)."""
        allowed = self.table(which, r0, r1, c0, c1)
        k = np.arange(c0, c1)[None, :]
        last = causal_last(np.arange(r0, r1) + self.offset, self.keys)  # the causal rule, stated once (doctor.rules)
        future = (k > last[:, None]) if self.causal else np.zeros_like(allowed)
        pad = np.broadcast_to(self.pad[c0:c1][None, :], allowed.shape)
        why = np.where(future & pad, FUTURE_PAD, np.where(future, FUTURE, np.where(pad, PAD, HIDDEN)))
        return np.where(allowed, ALLOWED, why).astype(np.uint8)

    def row_is_pad(self, row: int) -> bool:
        position = row + self.offset
        return 0 <= position < self.keys and bool(self.pad[position])

    def block_stats(self, block: int) -> BlockStats:
        """FlexAttention's counts at `block` (block_stats.BlockStats) of the user's table."""
        counts = self.blocks(block)
        kinds = counts.category("user")
        return BlockStats(block, int((kinds == FULL).sum()), int((kinds == PARTIAL).sum()),
                          int((kinds == EMPTY).sum()), int(counts.user.sum()), self.rows * self.keys)


class MaskTables(Tables):
    """The user's mask (read under the diagnosis's polarity) and the rule
    the diagnosis inferred, as tables over the same cells."""

    def __init__(self, mask: np.ndarray, diagnosis) -> None:
        self.mask, self.diagnosis = mask, diagnosis
        self.reading = Reading(mask, diagnosis.representation, diagnosis.polarity)
        self.rows, self.keys = mask.shape
        self.rule = diagnosis.rule
        #: A top-left mask with a cache is compared with its fix, the same
        #: rule aligned bottom-right (the rows are the queries after the
        #: cache): the history it hides is what differs.
        self.realigned = diagnosis.alignment.alignment == "top-left" and self.rows != self.keys
        if self.realigned:
            self.rule = self.rule.replace(offset=self.keys - self.rows)
        self.offset = int(self.rule.offset)
        #: The mask is exactly the rule's table (nothing to mark).
        self.exact = diagnosis.fit.comparison.count == 0 and not self.realigned
        pad = diagnosis.pad_keys
        self.pad_keys = (0, 0) if pad is None else (int(pad[0]), int(pad[1]))
        self.pad = np.zeros(self.keys, dtype=bool)
        for a, b in diagnosis.pad_runs:
            self.pad[a:b] = True
        self.causal = bool(self.rule.causal) or self.rule.tree is not None
        self._blocks: dict[int, BlockCounts] = {}

    # -- windows of cells ------------------------------------------------------
    def user(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """The user's table (True = may read) for rows r0:r1, keys c0:c1."""
        raw = raw_band(self.mask[r0:r1, c0:c1], self.reading.rep)
        return ~raw if self.reading.polarity == "blocked" else np.asarray(raw, dtype=bool)

    @cached_property
    def _intervals(self):
        return self.rule.intervals()

    def rule_table(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """The rule's table for the window (a tree's rows are built whole)."""
        if self._intervals is None:
            return self.rule.table_rows(slice(r0, r1))[:, c0:c1]
        lo, hi = self._intervals
        k = np.arange(c0, c1)[None, :]
        return (k >= lo[r0:r1, None]) & (k <= hi[r0:r1, None])

    def differs(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        return self.user(r0, r1, c0, c1) != self.rule_table(r0, r1, c0, c1)

    # -- blocks ----------------------------------------------------------------
    @cached_property
    def base(self) -> BlockCounts:
        """Counts per BASE x BASE tile, in one banded pass over the mask
        (the rule's table and the differences only where the rule differs)."""
        rows, keys = self.rows, self.keys
        n_q, n_k = -(-rows // BASE), -(-keys // BASE)
        user = np.empty((n_q, n_k), dtype=np.uint8)  # at most BASE * BASE = 64 per tile
        exact = self.exact
        rule = user if exact else np.empty_like(user)
        differ = np.zeros_like(user)
        step = max(BASE, BAND_CELLS // max(1, keys) // BASE * BASE)
        for r0 in range(0, rows, step):
            r1 = min(rows, r0 + step)
            b0, b1 = r0 // BASE, -(-r1 // BASE)
            got = self.reading.band(r0, r1)
            user[b0:b1] = tile_counts(got, BASE, BASE)
            if not exact:
                want = self.rule_table(r0, r1, 0, keys)
                rule[b0:b1] = tile_counts(want, BASE, BASE)
                differ[b0:b1] = tile_counts(got != want, BASE, BASE)
        return BlockCounts(BASE, user, rule, differ, tile_sizes(rows, BASE), tile_sizes(keys, BASE))

    def blocks(self, size: int) -> BlockCounts:
        """Counts per block of `size` (a multiple of BASE), cached."""
        if size % BASE:
            raise ValueError(f"block size {size} is not a multiple of {BASE}")
        if size not in self._blocks:
            base, f = self.base, size // BASE
            self._blocks[size] = BlockCounts(size, *(_summed(a, f) for a in (base.user, base.rule, base.differ)),
                                             tile_sizes(self.rows, size), tile_sizes(self.keys, size))
        return self._blocks[size]


def _summed(counts: np.ndarray, f: int) -> np.ndarray:
    """Sums over f x f groups of tiles (the last groups may be short)."""
    if f == 1:
        return counts
    n_q, n_k = counts.shape
    g_q, g_k = -(-n_q // f), -(-n_k // f)
    padded = np.zeros((g_q * f, g_k * f), dtype=np.int64)
    padded[:n_q, :n_k] = counts
    return padded.reshape(g_q, f, g_k, f).sum(axis=(1, 3))
