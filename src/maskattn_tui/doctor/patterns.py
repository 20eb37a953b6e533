"""A known rule's parameters read off a mask's row statistics (first /
last visible key and count per row): document lengths (with or without a
window inside them), chunk length, prefix length, a speculative decoding
tree's parents; and `Fit`, the rule a diagnosis settled on with its
comparison. A saved mask is read by every family at once, cheapest
description first (doctor.families, doctor.readings), from these helpers.

How the statistics show each pattern (rows at position p = row + offset):

    left PAD k      keys 0..k-1 never visible; rows start at key k
    right PAD k     the last k keys never visible
    window w        rows see [p-w+1, p]: the count saturates at w
    documents       the first visible key jumps to p at each new document
                    (with a window inside them: both; with no causal order,
                    the last visible key jumps too, one before)
    chunk c         documents of length c, counted from the first real
                    token with left PAD
    prefix P        rows before P see keys up to P-1, past their own position
    tree            rows are not one run: committed keys, ancestors, self"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.compare import Comparison
from maskattn_tui.doctor.representation import Reading, band_rows
from maskattn_tui.doctor.rows import RowStats
from maskattn_tui.doctor.rules import Rule

#: The fewest positions a bidirectional block reading takes: a block of 2 is a
#: single future cell, which a one-cell leak explains as simply (a prefix of 2
#: at the start stays a reading beside the leak: both are named).
BLOCK_MIN = 3


@dataclass(frozen=True)
class Fit:
    name: str  # causal | bidirectional | window | chunk | documents | prefix | tree | blocks
    rule: Rule
    comparison: Comparison


def most_common(values: np.ndarray) -> int | None:
    if values.size == 0:
        return None
    return int(np.argmax(np.bincount(values)))


def document_lengths(stats: RowStats) -> tuple[int, ...] | None:
    """Document lengths from the first visible key of each row (a new
    document starts where it jumps), if there are at least two."""
    starts = np.unique(np.concatenate(([0], stats.lo[~stats.empty])))
    if starts.size < 2:
        return None
    return tuple(int(n) for n in np.diff(np.append(starts, stats.keys)))


def encoder_document_lengths(stats: RowStats) -> tuple[int, ...] | None:
    """Documents with no causal order (a packed encoder): a document starts
    where rows start and the rows before end, so a stray cell that moves one
    row's first or last key makes no document of its own."""
    seen = ~stats.empty
    starts = np.intersect1d(stats.lo[seen], np.append(stats.hi[seen] + 1, 0))
    starts = np.unique(np.append(starts[starts < stats.keys], 0))
    if starts.size < 2:
        return None
    return tuple(int(n) for n in np.diff(np.append(starts, stats.keys)))


def windowed_document_lengths(stats: RowStats, offset: int) -> tuple[int, ...] | None:
    """Document lengths under a window (whose own cut moves every row's first
    key): a document starts at a row that sees no earlier key than itself."""
    own = np.arange(stats.lo.size) + offset
    starts = np.unique(np.concatenate(([0], own[~stats.empty & (stats.lo == own) & (own < stats.keys)])))
    if starts.size < 2:
        return None
    return tuple(int(n) for n in np.diff(np.append(starts, stats.keys)))


def chunk_size(lengths: tuple[int, ...], origin: int) -> int | None:
    """The chunk size: the gap between the first two document starts at or
    after `origin` (chunks count from the first real token with left PAD);
    the comparison then says whether chunks of that size fit."""
    starts = np.cumsum((0, *lengths[:-1]))
    after = starts[starts >= origin]
    return int(after[1] - after[0]) if after.size >= 2 else None


def prefix_length(stats: RowStats, offset: int) -> int | None:
    """P when exactly the rows before P-1 see past their own position, up
    to key P-1 (a few leaked rows do not make a prefix)."""
    own = np.arange(stats.hi.size) + offset
    past_own = ~stats.empty & (stats.hi > own)
    last = most_common(stats.hi[past_own])
    if last is None or last >= own[-1] or not np.array_equal(past_own, ~stats.empty & (own < last)):
        return None  # (a "prefix" over every row is no order at all)
    return last + 1


def tree_parents(reading: Reading, offset: int) -> tuple[int, ...]:
    """Each row's parent: the last new token before it that it sees (-1:
    none, a child of the committed keys)."""
    rows = reading.rows
    parents = np.empty(rows, dtype=np.int64)
    earlier = np.tri(rows, rows, -1, dtype=bool)  # [i, j]: j < i
    for r0 in range(0, rows, band_rows(rows, rows)):
        r1 = min(rows, r0 + band_rows(rows, rows))
        new = reading.band(r0, r1)[:, offset: offset + rows] & earlier[r0:r1]
        last = rows - 1 - np.argmax(new[:, ::-1], axis=1)
        parents[r0:r1] = np.where(new.any(axis=1), last, -1)
    return tuple(int(p) for p in parents)
