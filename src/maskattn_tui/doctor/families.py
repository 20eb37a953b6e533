"""The readings a mask may have, one per family, each a `Rule` with its
description length (`cost`: how many numbers it takes to state).

Families (a rule each, read off the row statistics, then compared):

    causal            k <= p, rows aligned bottom-right (a KV cache of S - L keys)
    static-cache      causal with p = row + filled, filled < S - L: the keys after
                      the last query are unused cache slots no row sees
    bidirectional     every row sees every real key (an encoder; Q = K)
    cross-attention   the same, Q != K (queries and keys from different sequences)
    window            causal sliding window; two-sided-window: left and right widths
    prefix, chunk, documents, tree, blocks (causal with bidirectional islands)
    bidirectional-documents   packed documents with no causal rule (a packed encoder)
    global-window     a two-sided window with global tokens (Longformer, BigBird)
    sink-window       a causal window with sink keys every row sees (StreamingLLM)
    PAD keys          a leading run (left), a trailing run (right), runs between (gaps);
                      PAD query rows blanked too (Flax, Keras): +1

Cost: 0 for causal or bidirectional, +1 for an offset other than S - L, a
PAD run, a run of global or sink keys, a window (2 if two-sided with unequal
widths), a chunk, a prefix, a tree; +2 a block (start and stop); a document
+1 each, and a tree node +1 unless it
continues a chain (parent = the node before). Trees need committed keys
(speculative decoding), so packed documents are never read as chains.
A causal reading that makes every query row PAD costs 2 more: no batch
computes only PAD queries, so cross-attention over padded keys reads first.
Blocks are 3 positions or more (patterns.BLOCK_MIN: a block of 2 is one
future cell, which a one-cell leak explains as simply).
The diagnosis adds one per cell that differs, and takes the reading of
least total (several if equal)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from maskattn_tui.doctor.patterns import (BLOCK_MIN, chunk_size, most_common, prefix_length, document_lengths,
                                          encoder_document_lengths, tree_parents, windowed_document_lengths)
from maskattn_tui.doctor.representation import Reading, band_rows
from maskattn_tui.doctor.rows import RowStats, row_runs_of, column_counts, last_rows
from maskattn_tui.doctor.rules import TREE_MAX, Rule

#: Family order on a tie of cost: the first is the reading shown first.
ORDER = ("causal", "bidirectional", "cross-attention", "static-cache", "window", "two-sided-window",
         "prefix", "chunk", "documents", "bidirectional-documents", "sink-window", "global-window", "blocks", "tree")

#: More blocks or PAD runs than this are not read as such (a noisy mask).
RUNS_MAX = 64
#: Global tokens are read (a second pass over every row) in masks up to this many cells.
GLOBALS_CELLS = 1 << 26


def family_of(name: str, rule: Rule) -> str:
    """The family a rule of pattern `name` belongs to."""
    if name == "window":
        return "window" if rule.causal else "two-sided-window"
    if name == "bidirectional":
        return "bidirectional" if rule.rows == rule.keys else "cross-attention"
    if name == "causal" and 0 < rule.offset < rule.keys - rule.rows:
        return "static-cache"
    if name == "documents" and not rule.causal:
        return "bidirectional-documents"
    if name == "globals":
        return "sink-window" if rule.causal else "global-window"
    return name


def cost(rule: Rule) -> int:
    c = 0
    if rule.causal and rule.tree is None and rule.offset != rule.keys - rule.rows:
        c += 1
    c += (1 if rule.pad else 0) + len(rule.gaps) + 2 * len(rule.blocks) + len(rule.globals) + rule.pad_rows
    if rule.causal and rule.tree is None and (rule.pad or rule.gaps) and rule.pad < rule.keys:
        c += 2 * bool(rule._pad_query(rule.positions(slice(None))).all())
    if rule.window is not None:
        c += 1 if rule.causal or rule.right_width == rule.window - 1 else 2
    c += (rule.chunk is not None) + (rule.prefix is not None)
    c += len(rule.documents or ())
    if rule.tree is not None:
        c += 1 + sum(1 for i, parent in enumerate(rule.tree) if i and parent != i - 1)
    return c


def _runs(hidden: np.ndarray) -> list[tuple[int, int]]:
    """Runs [start, stop) of True."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], hidden.view(np.int8), [0]))))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]


def pad_options(seen: np.ndarray, reach: int) -> list[tuple[int, str, tuple]]:
    """(pad, side, gaps) readings of the keys no row sees, up to `reach`
    (a causal rule's last position; keys after it are unused slots): none,
    the leading run (left PAD), the trailing run (right PAD), and all of
    them (left or right PAD and the runs between as gaps)."""
    keys = seen.size
    if not seen.any():
        return [(keys, "left", ())]
    runs = [(a, b) for a, b in _runs(~seen[: reach + 1])]
    if not runs or len(runs) > RUNS_MAX:
        return [(0, "left", ())]
    options = [(0, "left", ())]
    lead = runs[0][1] if runs[0][0] == 0 else 0
    trail = runs[-1] if runs[-1][1] == reach + 1 and runs[-1][0] > 0 else None
    inner = [r for r in runs if r[0] > 0 and r != trail]
    if lead:
        options.append((lead, "left", ()))
    if trail is not None and trail[1] == keys:
        options.append((keys - trail[0], "right", ()))
    elif trail is not None:
        inner.append(trail)  # PAD up to the reach, unused slots after it: a gap
    if lead and trail is not None and trail[1] == keys:
        inner.append(trail)  # PAD on both sides: the right run as a gap
    if inner:
        if lead:
            options.append((lead, "left", tuple(sorted(inner))))
        elif trail is not None and trail[1] == keys:
            options.append((keys - trail[0], "right", tuple(sorted(inner))))
        else:
            options.append((0, "left", tuple(sorted(inner))))
    return options


def _window_widths(stats: RowStats, p: np.ndarray, start: int, end: int) -> tuple[int | None, int | None]:
    """(left, right) widths of a two-sided window: the commonest distance
    to the first and last visible key among rows cut on that side."""
    rows = ~stats.empty & stats.contiguous
    left = most_common((p - stats.lo)[rows & (stats.lo > start) & (p - stats.lo >= 0)])
    right = most_common((stats.hi - p)[rows & (stats.hi < end) & (stats.hi - p >= 0)])
    return left, right


def bidirectional_blocks(stats: RowStats, offset: int) -> tuple[tuple[int, int], ...] | None:
    """Blocks read off the rows that see past their own position: rows with
    the same last key hi > own make one block [first own, hi + 1)."""
    own = np.arange(stats.hi.size) + offset
    past = ~stats.empty & stats.contiguous & (stats.hi > own)
    if offset < 0 or not past.any():
        return None
    index = np.flatnonzero(past)
    his = stats.hi[index]
    first = np.concatenate(([True], (np.diff(index) != 1) | (np.diff(his) != 0)))
    blocks = [(int(own[i]), int(h) + 1) for i, h in zip(index[first], his[first])]
    if len(blocks) > RUNS_MAX or any(b[0] < a[1] for a, b in zip(blocks, blocks[1:])):
        return None
    if blocks == [(0, blocks[0][1])]:
        return None  # one block at the start: the prefix-LM reading
    if any(b - a < BLOCK_MIN for a, b in blocks):
        return None
    return tuple(blocks)


def robust_document_lengths(reading: Reading, stats: RowStats, offset: int) -> tuple[int, ...] | None:
    """Document starts where both the rows and the columns say so: a row's
    first visible key, and one past a key's last row. One stray cell moves
    one row's start and one column's end, in different places, so only
    boundaries both agree on are kept."""
    rows, keys = reading.rows, reading.keys
    if offset < 0 or offset + rows > keys:
        return None
    last_row = last_rows(stats, reading)  # from the rows' runs: no second pass over the mask
    ends = last_row[offset: offset + rows] + offset + 1
    from_rows = set(int(v) for v in stats.lo[~stats.empty])
    starts = sorted({0} | (from_rows & set(int(v) for v in ends[last_row[offset: offset + rows] >= 0])))
    starts = [v for v in starts if 0 <= v < keys]
    if len(starts) < 2:
        return None
    return tuple(int(n) for n in np.diff(np.append(starts, keys)))


def _offsets(stats: RowStats, rows: int, keys: int) -> list[int]:
    """Causal alignments worth trying: bottom-right (S - L), top-left (0),
    and the commonest last-key minus row (a static cache's filled keys)."""
    out = [keys - rows]
    if keys != rows:  # top-left: with more rows than keys, the rows past the keys see them all
        out.append(0)
    rows_seen = ~stats.empty & stats.contiguous
    inferred = most_common(np.maximum(0, (stats.hi - np.arange(rows))[rows_seen]))
    if inferred is not None and 0 < inferred < keys - rows:
        out.append(inferred)
    return out


def candidates(reading: Reading, stats: RowStats, seen: np.ndarray | None = None,
               counts: np.ndarray | None = None) -> Iterator[tuple[str, int, Rule | Callable[[], Rule]]]:
    """Every reading to compare, as (pattern name, cost, rule); a tree's
    rule (and robust documents', global tokens') comes as a function making
    it, called only if its least cost may win (it may return None).
    `counts`: how many rows see each key (doctor.rows.column_counts), for
    the global and sink keys."""
    rows, keys = reading.rows, reading.keys
    counts = column_counts(stats, reading) if counts is None else counts  # (one pass for both)
    seen = counts > 0 if seen is None else seen
    documents = document_lengths(stats)
    for offset in _offsets(stats, rows, keys):
        base = Rule(rows=rows, keys=keys, offset=offset)
        p = np.arange(rows) + offset
        reach = int(min(keys - 1, max(0, p[-1])))
        prefix = prefix_length(stats, offset)
        blocks = bidirectional_blocks(stats, offset)
        windowed = None
        for pad, side, gaps in pad_options(seen, reach):
            padded = base.replace(pad=pad, pad_side=side, gaps=gaps)
            yield "causal", *_costed(padded)
            if _blank_pad_rows(stats, padded):
                yield "causal", *_costed(padded.replace(pad_rows=True))
            sinks = _sinks(stats, counts, padded)
            if sinks is not None:
                yield "globals", *_costed(sinks)
            if prefix is not None:
                yield "prefix", *_costed(padded.replace(prefix=prefix))
            start = pad if side == "left" else 0
            window = most_common(stats.count[~stats.empty & stats.contiguous & (stats.lo > start)])
            if window is not None:
                yield "window", *_costed(padded.replace(window=window))
            if blocks is not None:
                yield "blocks", *_costed(padded.replace(blocks=blocks))
                if window is not None:
                    yield "blocks", *_costed(padded.replace(blocks=blocks, window=window))
            if documents is not None:
                chunk = chunk_size(documents, padded.chunk_origin)
                if chunk is not None:
                    yield "chunk", *_costed(padded.replace(chunk=chunk))
                yield "documents", *_costed(padded.replace(documents=documents))
                if len(documents) <= RUNS_MAX:  # a few stray cells among few documents
                    yield "documents", cost(padded) + 2, _robust_maker(reading, stats, padded, documents)
            if window is not None and window > 1:
                windowed = windowed_document_lengths(stats, offset) if windowed is None else windowed
                if windowed is not None:
                    yield "documents", *_costed(padded.replace(documents=windowed, window=window))
            if not stats.contiguous.all() and rows <= TREE_MAX and 0 < offset == keys - rows:
                yield "tree", cost(padded) + 1, _tree_maker(reading, padded)
    yield from _not_causal(reading, stats, seen, counts)


def _costed(rule: Rule) -> tuple[int, Rule]:
    return cost(rule), rule


def _robust_maker(reading: Reading, stats: RowStats, padded: Rule, documents) -> Callable[[], Rule | None]:
    """Documents whose starts rows and columns agree on (a pass over the
    mask: made only if their cost may win); None when they are the plain ones."""
    def make() -> Rule | None:
        robust = robust_document_lengths(reading, stats, padded.offset)
        return padded.replace(documents=robust) if robust and robust != documents else None
    return make


def _tree_maker(reading: Reading, padded: Rule) -> Callable[[], Rule]:
    return lambda: padded.replace(tree=tree_parents(reading, padded.offset))


def _not_causal(reading: Reading, stats: RowStats, seen: np.ndarray,
                counts: np.ndarray) -> Iterator[tuple[str, int, Rule]]:
    rows, keys = reading.rows, reading.keys
    documents = encoder_document_lengths(stats)
    for offset in sorted({max(0, keys - rows), 0}, reverse=True):
        base = Rule(rows=rows, keys=keys, offset=offset, causal=False)
        p = np.arange(rows) + offset
        for pad, side, gaps in pad_options(seen, keys - 1):
            padded = base.replace(pad=pad, pad_side=side, gaps=gaps)
            if offset == max(0, keys - rows):  # (no alignment: row labels start at 0 when Q > K)
                yield "bidirectional", *_costed(padded)
                if rows == keys and _blank_pad_rows(stats, padded):
                    yield "bidirectional", *_costed(padded.replace(pad_rows=True))
                if documents is not None and not pad and not gaps:
                    yield "documents", *_costed(padded.replace(documents=documents))
                every = counts == rows - int(np.count_nonzero(stats.empty))  # keys every row sees
                if every.any() and not every.all() and rows * keys <= GLOBALS_CELLS:
                    yield "globals", cost(padded) + 2, _globals_maker(reading, stats, counts, padded)
            start = pad if side == "left" else 0
            end = keys - 1 - (pad if side == "right" else 0)
            left, right = _window_widths(stats, p, start, end)
            # cut on one side only, the other side hidden by PAD keys: try it symmetric
            # (the cells it gets wrong, if any, are counted against it)
            if left is None and right is not None and start > 0:
                left = right
            if right is None and left is not None and end < keys - 1:
                right = left
            if left is not None and right is not None:
                yield "window", *_costed(padded.replace(window=left + 1, right=right))


def _blank_pad_rows(stats: RowStats, padded: Rule) -> bool:
    """Are the query rows at PAD positions all empty, where the rule would
    show them keys (Flax's make_attention_mask, Keras's query_mask)?"""
    if not (padded.pad or padded.gaps) or padded.pad >= padded.keys:
        return False
    at_pad = padded._pad_query(padded.positions(slice(None)))
    runs = padded.intervals()
    shown = at_pad if runs is None else at_pad & (runs[1] >= runs[0])
    return bool(shown.any()) and bool(stats.empty[at_pad].all())


def _sinks(stats: RowStats, counts: np.ndarray, padded: Rule) -> Rule | None:
    """A causal window with sink keys (StreamingLLM; a causal window with a
    global key 0): the leading keys every row at or after them sees, and
    the window the other rows keep beside them."""
    start = padded.chunk_origin  # the first real token
    rows, keys, offset = stats.lo.size, stats.keys, padded.offset
    k = np.arange(start, keys)
    later = rows - np.clip(k - offset, 0, rows)  # rows at or after each key
    sink = (counts[start:] == later) & (later > 0)
    n = int(np.argmin(sink)) if not sink.all() else sink.size
    split = ~stats.empty & ~stats.contiguous & (stats.lo == start)
    if n == 0 or np.count_nonzero(split) < 2:  # one row cut is one hidden cell as simply
        return None
    beside = stats.count[split] - n  # the keys a split row keeps beside the sinks
    window = most_common(beside[beside > 0])
    if window is None:
        return None
    return padded.replace(window=window, globals=((start, start + n),))


def _globals_maker(reading: Reading, stats: RowStats, counts: np.ndarray, padded: Rule) -> Callable[[], Rule | None]:
    """Global tokens with a two-sided window (Longformer, BigBird): the keys
    every row sees are global (their rows see every key); the window is read
    off the other rows with the global keys taken out (a pass over them)."""
    def make() -> Rule | None:
        rows, keys = reading.rows, reading.keys
        real = rows - int(np.count_nonzero(stats.empty))
        glob = (counts == real) & (counts > 0)
        runs = _runs(glob)
        if not runs or glob.all() or len(runs) > RUNS_MAX:
            return None
        own = np.arange(rows) + padded.offset
        local = ~glob[np.clip(own, 0, keys - 1)]
        lo, hi, count = np.zeros(rows, np.int64), np.full(rows, -1, np.int64), np.zeros(rows, np.int64)
        index = np.flatnonzero(local)
        for i in range(0, index.size, band_rows(index.size, keys)):
            part = index[i: i + band_rows(index.size, keys)]
            lo[part], hi[part], count[part] = row_runs_of(reading.rows_at(part) & ~glob)
        # a row's window cut, where the key beyond it is no global key (that one was taken out)
        seen = count > 0
        cut_left = seen & (lo > 0) & ~glob[np.maximum(lo - 1, 0)] & (own >= lo)
        cut_right = seen & (hi < keys - 1) & ~glob[np.minimum(hi + 1, keys - 1)] & (hi >= own)
        left, right = most_common((own - lo)[cut_left]), most_common((hi - own)[cut_right])
        # no clean cut on a side (every one beside a global key): the least width that shows what rows see
        inside = seen & (lo <= own) & (own <= hi)
        if left is None and inside.any():
            left = int((own - lo)[inside].max())
        if right is None and inside.any():
            right = int((hi - own)[inside].max())
        if left is None or right is None:
            return None
        return padded.replace(window=left + 1, right=right, globals=tuple(runs))
    return make
