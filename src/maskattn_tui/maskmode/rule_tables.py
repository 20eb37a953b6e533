"""A rule of any length (`maskattn-tui --new 131072 --window 4096`) as mask
mode's tables (a tables.Tables, as MaskTables is), backed by the
rule's row runs (scale.intervals) instead of a saved array: cells only for
the tiles the grid asks for (Runs.band), block counts analytically.

The rule is both tables (the user built it: nothing differs). Blocks are
counted as FlexAttention pads them (a short last block is never full), so
the overview equals scale.blocks.from_runs for the same block size."""

from __future__ import annotations

import numpy as np

from maskattn_tui.maskmode.block_stats import BLOCK_SIZES, BlockStats
from maskattn_tui.maskmode.tables import BlockCounts, Tables
from maskattn_tui.scale.blocks import EMPTY, FULL, PARTIAL, cdiv
from maskattn_tui.scale.intervals import Runs

#: Blocks an overview holds at most (its counts: 8 bytes each); the
#: smallest block size offered is the first that keeps within it.
MAX_BLOCKS = 1 << 20
#: Q-blocks x KV-blocks per pass of block_counts.
_CHUNK_CELLS = 1 << 22


def block_counts(runs: Runs, size: int, b0: int = 0, b1: int | None = None) -> np.ndarray:
    """Visible cells per size x size block, for Q-blocks b0:b1 (int64
    (b1 - b0, ceil(keys/size))): a run adds its partial edges to its first
    and last block and `size` to each block between (a difference array),
    so no cell is evaluated."""
    n_q, n_k = cdiv(runs.rows, size), cdiv(runs.keys, size)
    b1 = n_q if b1 is None else b1
    out = np.zeros((b1 - b0, n_k), dtype=np.int64)
    width = n_k + 1
    chunk = max(1, _CHUNK_CELLS // width)
    for c0 in range(b0, b1, chunk):
        c1 = min(b1, c0 + chunk)
        a, b = np.searchsorted(runs.row, [c0 * size, c1 * size])
        r = runs.row[a:b] // size - c0
        lo, hi = runs.lo[a:b], runs.hi[a:b]
        first, last = lo // size, hi // size
        cells = (c1 - c0) * width
        one = first == last
        edge = np.zeros(cells)  # float: bincount's weights (exact: a block holds far fewer than 2**53 cells)
        edge += np.bincount(r[one] * width + first[one], weights=(hi - lo + 1)[one], minlength=cells)
        two = ~one
        edge += np.bincount(r[two] * width + first[two], weights=(size - lo % size)[two], minlength=cells)
        edge += np.bincount(r[two] * width + last[two], weights=(hi % size + 1)[two], minlength=cells)
        inner = np.bincount(r[two] * width + first[two] + 1, minlength=cells) \
            - np.bincount(r[two] * width + last[two], minlength=cells)
        got = edge.reshape(c1 - c0, width) + size * np.cumsum(inner.reshape(c1 - c0, width), axis=1)
        out[c0 - b0:c1 - b0] = got[:, :n_k].astype(np.int64)
    return out


def least_block(rows: int, keys: int) -> int:
    """The smallest offered block size whose overview keeps within MAX_BLOCKS."""
    for size in BLOCK_SIZES:
        if cdiv(rows, size) * cdiv(keys, size) <= MAX_BLOCKS:
            return size
    return BLOCK_SIZES[-1]


class RuleTables(Tables):
    """A rule's runs as both tables (module note)."""

    def __init__(self, runs: Runs, rule, past: int, pad_keys: tuple[int, int]) -> None:
        self.runs, self.rule = runs, rule
        self.rows, self.keys = runs.rows, runs.keys
        self.offset = past
        self.pad_keys = pad_keys
        self.pad = np.zeros(self.keys, dtype=bool)
        self.pad[pad_keys[0]:pad_keys[1]] = True
        self.causal = bool(rule.causal) or rule.tree is not None
        self.least = least_block(self.rows, self.keys)
        self._blocks: dict[int, BlockCounts] = {}
        self._stats: dict[int, BlockStats] = {}

    def user(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        return self.runs.band(r0, r1, c0, c1)

    def rule_table(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        return self.runs.band(r0, r1, c0, c1)  # the user built the rule: one table

    def differs(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        return np.zeros((r1 - r0, c1 - c0), dtype=bool)

    def blocks(self, size: int) -> BlockCounts:
        """Counts per block of `size` (at least self.least), cached; each
        block's size is the whole `size` (FlexAttention's padding)."""
        if size < self.least:
            raise ValueError(f"block size {size} makes more than {MAX_BLOCKS} blocks")
        if size not in self._blocks:
            counts = block_counts(self.runs, size)
            n_q, n_k = counts.shape
            self._blocks[size] = BlockCounts(size, counts, counts, np.zeros((n_q, n_k), dtype=np.uint8),
                                             np.full(n_q, size), np.full(n_k, size))
        return self._blocks[size]

    def block_stats(self, block: int) -> BlockStats:
        """block_stats.BlockStats at `block`, counted by bands of Q-blocks
        (any length: the counts are never all held); kept, since the
        explanation pane asks at every move."""
        if block not in self._stats:
            self._stats[block] = self._count_stats(block)
        return self._stats[block]

    def _count_stats(self, block: int) -> BlockStats:
        n_q = cdiv(self.rows, block)
        step = max(1, _CHUNK_CELLS // (cdiv(self.keys, block) + 1))
        tally = {EMPTY: 0, PARTIAL: 0, FULL: 0}
        for b0 in range(0, n_q, step):
            counts = block_counts(self.runs, block, b0, min(n_q, b0 + step))
            full = int(np.count_nonzero(counts == block * block))
            some = int(np.count_nonzero(counts))
            tally[FULL] += full
            tally[PARTIAL] += some - full
            tally[EMPTY] += counts.size - some
        return BlockStats(block, tally[FULL], tally[PARTIAL], tally[EMPTY], self.runs.visible(),
                          self.rows * self.keys)
