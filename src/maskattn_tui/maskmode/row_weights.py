"""The softmax weights of one query row of a diagnosed mask: over the keys
the user's table lets the row read, with deterministic generated scores or
scores the user gave. Pure numpy.

A row costs O(keys) vectorised work (the softmax needs the whole row's
normaliser), never a Python loop per key; what the bars draw is a window of
keys (`RowWeights.window`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.maskmode.tables import MaskTables
from maskattn_tui.engine.softmax import masked_softmax
from maskattn_tui.errors import MaskattnError

#: Generated scores are a standard normal per row, seeded by (SEED, row).
SEED = 12


@dataclass(frozen=True)
class RowWeights:
    row: int
    position: int
    scores: np.ndarray  # float64, one per key
    visible: np.ndarray  # bool: the user's table for this row
    weights: np.ndarray  # float64: 0 where hidden; all 0 for an empty row
    given: bool  # the scores came from the user
    real: bool = False  # ... from a captured call's own q, k and mask (capture --weights)

    @property
    def empty(self) -> bool:
        return not self.visible.any()

    @property
    def count(self) -> int:
        return int(np.count_nonzero(self.visible))

    @property
    def top(self) -> int | None:
        """The key with the largest weight (None for an empty row)."""
        return None if self.empty else int(np.argmax(self.weights))

    def largest(self, n: int) -> list[int]:
        """The keys of the n largest weights, largest first (visible keys only)."""
        n = min(n, self.count)
        if n <= 0:
            return []
        top = np.argpartition(-self.weights, n - 1)[:n]
        return [int(k) for k in top[np.lexsort((top, -self.weights[top]))]]

    def window(self, c0: int, c1: int) -> list[tuple[int, bool, float, float]]:
        """(key, visible, score, weight) for keys c0:c1."""
        c0, c1 = max(0, c0), min(len(self.weights), c1)
        return [(k, bool(v), float(s), float(w)) for k, v, s, w in
                zip(range(c0, c1), self.visible[c0:c1], self.scores[c0:c1], self.weights[c0:c1])]


def generated_scores(row: int, keys: int) -> np.ndarray:
    """The same scores for the same row every time (and on every machine)."""
    return np.random.default_rng((SEED, row)).standard_normal(keys)


def check_scores(scores: np.ndarray, shape: tuple[int, int], name: str) -> np.ndarray:
    """Given scores: the mask's (L, S), or one row (S,) used for every query."""
    if scores.ndim not in (1, 2) or scores.shape[-1] != shape[1] or (scores.ndim == 2 and scores.shape[0] != shape[0]):
        raise MaskattnError("mask_scores_shape", file=name, got="x".join(map(str, scores.shape)),
                            want="x".join(map(str, shape)))
    if not np.issubdtype(scores.dtype, np.number) or np.issubdtype(scores.dtype, np.complexfloating):
        raise MaskattnError("doctor_dtype", file=name, dtype=str(scores.dtype))
    return scores


def row_weights(tables: MaskTables, row: int, scores: np.ndarray | None = None,
                temperature: float = 1.0, real: bool = False) -> RowWeights:
    """softmax(scores / temperature) over the row's visible keys; hidden keys
    get exactly 0, as do all keys of a row with no visible key."""
    keys = tables.keys
    visible = tables.user(row, row + 1, 0, keys)[0]
    if scores is None:
        s = generated_scores(row, keys)
    else:
        s = np.asarray(scores[row] if scores.ndim == 2 else scores, dtype=np.float64)
        if not np.isfinite(s[visible]).all():
            raise MaskattnError("softmax_nan_inf")
    weights = masked_softmax(s, visible, temperature, "zeros")
    return RowWeights(row, tables.offset + row, s, visible, weights, scores is not None, real and scores is not None)
