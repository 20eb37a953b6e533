"""Which known rule a mask follows: causal (or bidirectional) with PAD keys,
a sliding window, chunks, packed documents, a prefix-LM, a speculative
decoding tree. Each candidate's parameters are read off the row statistics
(first / last visible key and count per row), then every candidate is
compared with the mask and the one with the fewest differing cells wins
(ties: the simpler one). A mask that fits no rule still gets the closest
one, and the cells where it differs.

`candidates` and `best_fit` are this per-alignment fit (scale.reading
uses it for mask_mods); a saved mask is read by every family at once,
cheapest description first (doctor.families, doctor.readings), from the
helpers here.

How the statistics show each pattern (rows at position p = row + offset):

    left PAD k      keys 0..k-1 never visible; rows start at key k
    right PAD k     the last k keys never visible
    window w        rows see [p-w+1, p]: the count saturates at w
    documents       the first visible key jumps to p at each new document
                    (with a window inside them: both)
    chunk c         documents of length c, counted from the first real
                    token with left PAD
    prefix P        rows before P see keys up to P-1, past their own position
    tree            rows are not one run: committed keys, ancestors, self"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.compare import Comparison, compare
from maskattn_tui.doctor.representation import Reading, band_rows
from maskattn_tui.doctor.rows import RowStats, visible_columns
from maskattn_tui.doctor.rules import TREE_MAX, Rule


@dataclass(frozen=True)
class Fit:
    name: str  # causal | bidirectional | window | chunk | documents | prefix | tree | blocks
    rule: Rule
    comparison: Comparison


def _mode(values: np.ndarray) -> int | None:
    if values.size == 0:
        return None
    return int(np.argmax(np.bincount(values)))


def pad_options(stats: RowStats, reading: Reading, offset: int, causal: bool) -> list[tuple[int, str]]:
    """(pad, side) readings of the never-visible keys: none, the leading
    run (left PAD), the trailing run within the rows' reach (right PAD)."""
    seen = visible_columns(stats, reading)
    keys = stats.keys
    if not seen.any():
        return [(keys, "left")]
    options = [(0, "left")]
    lead = int(np.argmax(seen))
    if lead:
        options.append((lead, "left"))
    last_seen = keys - 1 - int(np.argmax(seen[::-1]))
    reach = min(keys - 1, stats.lo.size - 1 + offset) if causal else keys - 1
    if last_seen < reach:
        options.append((keys - 1 - last_seen, "right"))
    return options


def _window(stats: RowStats, pad: int, side: str, causal: bool, offset: int) -> int | None:
    """The window size (keys incl. self) if some rows are cut on the left."""
    start = pad if side == "left" else 0
    rows = ~stats.empty & stats.contiguous & (stats.lo > start)
    w = _mode(stats.count[rows])
    if w is None:
        return None
    return w if causal else (w + 1) // 2


def document_lengths(stats: RowStats) -> tuple[int, ...] | None:
    """Document lengths from the first visible key of each row (a new
    document starts where it jumps), if there are at least two."""
    starts = np.unique(np.concatenate(([0], stats.lo[~stats.empty])))
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


def _chunk(lengths: tuple[int, ...], origin: int) -> int | None:
    """The chunk size: the gap between the first two document starts at or
    after `origin` (chunks count from the first real token with left PAD);
    the comparison then says whether chunks of that size fit."""
    starts = np.cumsum((0, *lengths[:-1]))
    after = starts[starts >= origin]
    return int(after[1] - after[0]) if after.size >= 2 else None


def _prefix(stats: RowStats, offset: int) -> int | None:
    """P when exactly the rows before P-1 see past their own position, up
    to key P-1 (a few leaked rows do not make a prefix)."""
    own = np.arange(stats.hi.size) + offset
    past_own = ~stats.empty & (stats.hi > own)
    last = _mode(stats.hi[past_own])
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


def candidates(stats: RowStats, reading: Reading, offset: int, causal: bool) -> list[tuple[str, Rule]]:
    rows, keys = reading.rows, reading.keys
    base = Rule(rows=rows, keys=keys, offset=offset, causal=causal)
    pads = pad_options(stats, reading, offset, causal)
    out: list[tuple[str, Rule]] = []
    for pad, side in pads:
        out.append(("causal" if causal else "bidirectional", base.replace(pad=pad, pad_side=side)))
    prefix = _prefix(stats, offset) if causal else None
    documents = document_lengths(stats)
    for pad, side in pads:
        padded = base.replace(pad=pad, pad_side=side)
        if prefix is not None and prefix <= keys:
            out.append(("prefix", padded.replace(prefix=prefix)))
        window = _window(stats, pad, side, causal, offset)
        if window is not None:
            out.append(("window", padded.replace(window=window)))
        if documents is not None:
            chunk = _chunk(documents, padded.chunk_origin)
            if chunk is not None:  # listed first: on a tie chunks are the simpler reading
                out.append(("chunk", padded.replace(chunk=chunk)))
            out.append(("documents", padded.replace(documents=documents)))
        windowed = windowed_document_lengths(stats, offset) if window is not None and window > 1 else None
        if windowed is not None:  # a window inside packed documents
            out.append(("documents", padded.replace(documents=windowed, window=window)))
    if causal and not stats.contiguous.all() and rows <= TREE_MAX and 0 <= offset and offset + rows <= keys:
        parents = tree_parents(reading, offset)
        out.extend(("tree", base.replace(pad=pad, pad_side=side, tree=parents)) for pad, side in pads)
    return out


def best_fit(reading: Reading, stats: RowStats, offset: int, causal: bool) -> Fit:
    best = None
    for name, rule in candidates(stats, reading, offset, causal):
        result = compare(reading, stats, rule)
        if best is None or result.count < best.comparison.count:
            best = Fit(name, rule, result)
        if best.comparison.count == 0:
            break
    return best
