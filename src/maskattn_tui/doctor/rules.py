"""Visibility rules as numpy tables, built row band by row band.

A `Rule` says which keys each query row may read. Query row r sits at the
absolute position ``p = offset + r``; keys are the positions 0 .. keys-1.
The parts combine as in Hugging Face's masking_utils (and the explorer):

    order    causal: k <= p            (not causal: every key)
             tree:   committed keys k < offset, ancestors and self only
    prefix   OR  k < prefix            (a bidirectional prefix, then causal)
    window   AND p - window < k        (window = keys incl. self, HF's
                                        sliding_window); not causal also
                                        k <= p + right (right = window - 1 unless
                                        given: a two-sided window, --expect's
                                        --no-causal --window W is window W + 1,
                                        right W, HF's |q - k| <= W)
    chunk    AND (k-o) // chunk == (p-o) // chunk, o = the first real token
                                       with left PAD (HF's chunked_overlay)
    documents AND same document (lengths covering the keys)
    blocks   OR  p and k in one block  (bidirectional islands: image tokens,
                                        HF's block_sequence_ids)
    globals  OR  k global (causal: k <= p): keys every row sees; not causal, a
                 global row also sees every key (Longformer / BigBird global
                 tokens); causal, a leading run is StreamingLLM's sink keys
    pad      AND k is not PAD (the first `pad` keys, or the last)
    gaps     AND k in no gap (PAD runs between real keys)
    pad_rows     a query row at a PAD position sees nothing (Flax's
                 make_attention_mask, Keras's query_mask blank PAD queries)

Every rule but a tree or one with gaps or globals gives each row one contiguous run of keys, so it also
has `intervals()`: per row the first and last visible key (first > last for
an empty row), which lets big masks be compared without building tables."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from maskattn_tui.engine.rules import chunk_origin
from maskattn_tui.errors import MaskattnError

#: A tree's ancestor table is rows x rows booleans: refuse bigger trees.
TREE_MAX = 8192


@dataclass(frozen=True)
class Rule:
    rows: int
    keys: int
    offset: int
    causal: bool = True
    pad: int = 0
    pad_side: str = "left"
    window: int | None = None
    chunk: int | None = None
    prefix: int | None = None
    documents: tuple[int, ...] | None = None
    #: parent of each new token (row), -1 for a child of the committed keys
    tree: tuple[int, ...] | None = None
    #: keys after its own position a non-causal window shows (None: window - 1)
    right: int | None = None
    #: PAD runs [start, stop) between real keys, hidden from every row
    gaps: tuple[tuple[int, int], ...] = ()
    #: bidirectional blocks [start, stop) of positions: each sees all of itself
    blocks: tuple[tuple[int, int], ...] = ()
    #: global positions [start, stop): seen by every row (and, not causal, seeing every key)
    globals: tuple[tuple[int, int], ...] = ()
    #: query rows at PAD positions see no key (Flax, Keras)
    pad_rows: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.pad <= self.keys:
            raise MaskattnError("doctor_pad_range", value=self.pad, hi=self.keys)
        for name in ("window", "chunk"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise MaskattnError("doctor_positive", option=f"--{name}", value=value)
        if self.prefix is not None and not 0 <= self.prefix <= self.keys:
            raise MaskattnError("doctor_prefix_range", value=self.prefix, hi=self.keys)
        if self.documents is not None:
            if any(n < 1 for n in self.documents) or sum(self.documents) != self.keys:
                raise MaskattnError("doctor_documents_sum", lengths=_join(self.documents), keys=self.keys)
        if self.tree is not None:
            if len(self.tree) != self.rows:
                raise MaskattnError("doctor_tree_length", got=len(self.tree), rows=self.rows)
            for i, parent in enumerate(self.tree):
                if not -1 <= parent < i:
                    raise MaskattnError("doctor_tree_parent", index=i, value=parent)
            if self.rows > TREE_MAX:
                raise MaskattnError("doctor_tree_size", rows=self.rows, most=TREE_MAX)
            if self.offset + self.rows > self.keys or self.offset < 0:
                raise MaskattnError("doctor_tree_keys", rows=self.rows, keys=self.keys, past=self.offset)
        for runs in (self.gaps, self.blocks, self.globals):  # built by the inference, never typed: a bug if wrong
            if any(not 0 <= a < b <= self.keys for a, b in runs) or list(runs) != sorted(runs):
                raise ValueError(f"bad runs {runs!r} for {self.keys} keys")

    @property
    def right_width(self) -> int:
        """Keys after its own position a row may see (0 when causal)."""
        if self.causal or self.window is None:
            return 0
        return self.window - 1 if self.right is None else self.right

    @property
    def unused(self) -> int:
        """Static-cache slots after the last query's position: no causal row sees them."""
        if not self.causal or self.tree is not None:
            return 0
        return max(0, self.keys - (self.offset + self.rows))

    def replace(self, **changes) -> "Rule":
        return replace(self, **changes)

    # --- pieces -----------------------------------------------------------------

    def positions(self, rows) -> np.ndarray:
        """Absolute positions of query rows (a slice or an index array)."""
        if isinstance(rows, slice):
            rows = np.arange(*rows.indices(self.rows))
        return np.asarray(rows, dtype=np.int64) + self.offset

    @cached_property
    def _doc_ends(self) -> np.ndarray:
        return np.cumsum(np.asarray(self.documents, dtype=np.int64))

    def _doc_of(self, positions: np.ndarray) -> np.ndarray:
        return np.searchsorted(self._doc_ends, positions, side="right")

    @cached_property
    def _ancestors(self) -> np.ndarray:
        """[i, j]: new token j is node i or one of its ancestors."""
        n = self.rows
        table = np.zeros((n, n), dtype=bool)
        for i, parent in enumerate(self.tree):
            if parent >= 0:
                table[i, : parent + 1] = table[parent, : parent + 1]
            table[i, i] = True
        return table

    @property
    def chunk_origin(self) -> int:
        """Where chunks are counted from: the first real token (engine.rules)."""
        return chunk_origin(self.pad, self.pad_side)

    def _pad_keys(self) -> tuple[int, int]:
        """PAD keys as the range [start, stop)."""
        if self.pad_side == "left":
            return 0, self.pad
        return self.keys - self.pad, self.keys

    # --- the table ----------------------------------------------------------------

    def table_rows(self, rows) -> np.ndarray:
        """The allowed table (True = may read) for these query rows: a slice
        or an array of row indices."""
        p = self.positions(rows)[:, None]
        k = np.arange(self.keys)[None, :]
        if self.tree is not None:
            index = np.arange(*rows.indices(self.rows)) if isinstance(rows, slice) else np.asarray(rows)
            allowed = np.zeros((len(index), self.keys), dtype=bool)
            allowed[:, : self.offset] = True
            allowed[:, self.offset: self.offset + self.rows] = self._ancestors[index]
        else:
            allowed = (k <= p) if self.causal else np.ones((p.shape[0], self.keys), dtype=bool)
        if self.prefix:
            allowed |= k < self.prefix
        if self.window is not None:
            allowed &= k > p - self.window
            if not self.causal:
                allowed &= k <= p + self.right_width
        if self.chunk is not None:
            o = self.chunk_origin
            allowed &= ((k - o) // self.chunk) == ((p - o) // self.chunk)
        if self.documents is not None:
            allowed &= self._doc_of(k) == self._doc_of(p)
        for a, b in self.blocks:
            allowed |= (p >= a) & (p < b) & (k >= a) & (k < b)
        for a, b in self.globals:
            column = (k >= a) & (k < b)
            allowed |= (column & (k <= p)) if self.causal else (column | ((p >= a) & (p < b)))
        if self.pad:
            start, stop = self._pad_keys()
            allowed[:, start:stop] = False
        for a, b in self.gaps:
            allowed[:, a:b] = False
        if self.pad_rows:
            allowed[self._pad_query(p[:, 0])] = False
        return allowed

    def _pad_query(self, positions: np.ndarray) -> np.ndarray:
        """Which of these positions are PAD (rows of the keys' own sequence)."""
        out = np.zeros(positions.shape, dtype=bool)
        for a, b in ([self._pad_keys()] if self.pad else []) + list(self.gaps):
            out |= (positions >= a) & (positions < b)
        return out

    def intervals(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Per row (first, last) visible key, first > last when the row is
        empty; None for a tree or gaps (rows are not one run of keys)."""
        if self.tree is not None or self.gaps or self.globals:
            return None
        p = self.positions(slice(None))
        last_key = self.keys - 1
        lo = np.zeros_like(p)
        hi = causal_last(p, self.keys) if self.causal else np.full_like(p, last_key)
        if self.prefix:
            hi = np.maximum(hi, self.prefix - 1)
        if self.window is not None:
            lo = np.maximum(lo, p - self.window + 1)
            if not self.causal:
                hi = np.minimum(hi, p + self.right_width)
        if self.chunk is not None:
            o = self.chunk_origin
            start = ((p - o) // self.chunk) * self.chunk + o
            lo, hi = np.maximum(lo, start), np.minimum(hi, start + self.chunk - 1)
        if self.documents is not None:
            doc = self._doc_of(p)
            ends = np.append(self._doc_ends, self.keys + max(0, int(p.max(initial=0)) + 1))
            starts = np.concatenate(([0], ends[:-1]))
            lo, hi = np.maximum(lo, starts[doc]), np.minimum(hi, ends[doc] - 1)
        for a, b in self.blocks:  # the block meets the row's run at its own position: one run
            inside = (p >= a) & (p < b)
            lo, hi = np.where(inside, np.minimum(lo, a), lo), np.where(inside, np.maximum(hi, b - 1), hi)
        if self.pad:
            start, stop = self._pad_keys()
            if start == 0:
                lo = np.maximum(lo, stop)
            else:
                hi = np.minimum(hi, start - 1)
        hi = np.minimum(hi, last_key)
        if self.pad_rows:
            hi = np.where(self._pad_query(p), -1, hi)
        return lo, hi

    def describe(self) -> dict:
        """The rule's parts, for JSON and the report (None = not used)."""
        return {"causal": self.causal, "past": self.offset, "pad": self.pad,
                "pad_side": self.pad_side if self.pad else None, "window": self.window,
                "chunk": self.chunk, "prefix": self.prefix,
                "documents": list(self.documents) if self.documents is not None else None,
                "tree": list(self.tree) if self.tree is not None else None,
                "right": self.right_width if self.window is not None and not self.causal else None,
                "gaps": [list(g) for g in self.gaps], "blocks": [list(b) for b in self.blocks],
                "unused": self.unused, "globals": [list(g) for g in self.globals], "pad_rows": self.pad_rows}


def causal_last(positions: np.ndarray, keys: int) -> np.ndarray:
    """The last key a causal row at each position sees (its own, or the
    last key when the row is past the keys): the causal rule as runs, the
    one place the numpy side states it (table_rows is its cell form)."""
    return np.minimum(positions, keys - 1)


def rule_of(params, keys: int) -> Rule:
    """The doctor's rule of a MaskParams record (explore.mask_params: the
    conversions are its properties) over `keys` keys: PAD keys, and unused
    slots no causal row reaches, as gaps."""
    filled = params.filled
    pad, gaps = params.pad, list(params.pad_key_runs)
    if keys > filled and pad and params.pad_side == "right":  # right PAD ends before the slots
        pad, gaps = 0, gaps + [(filled - params.pad, filled)]
    if keys > filled and not params.causal:
        gaps.append((filled, keys))
    return Rule(rows=params.new, keys=keys, offset=params.past, causal=params.causal,
                pad=pad, pad_side=params.pad_side, window=params.window_keys,
                chunk=params.chunk, prefix=params.prefix, documents=params.documents, tree=params.tree,
                right=params.window_after, gaps=_merged(gaps), blocks=params.block_runs, globals=params.sink_runs)


def _merged(runs: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(runs):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def _join(values) -> str:
    return ",".join(str(v) for v in values)
