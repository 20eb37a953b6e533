"""engine.softmax's masked softmax over a numpy row: the same rule (shifted by
the maximum, blocked keys exactly 0, the same refusals and empty-row policies),
vectorised for rows of thousands of keys. engine.softmax imports this module
only when it is handed a numpy array, so figure mode and `print` never import
numpy."""

from __future__ import annotations

import math

import numpy as np

from maskattn_tui.errors import EmptyRowError, MaskattnError


def softmax_row(scores, allowed=None, temperature: float = 1.0, policy: str = "error") -> np.ndarray:
    """Softmax(scores / temperature) over `allowed` (None: every key) as a
    float64 array; the caller has checked temperature and policy."""
    s = np.asarray(scores, dtype=np.float64)
    n = s.shape[0]
    if allowed is None:
        if n == 0:
            raise MaskattnError("softmax_empty")
        visible = ~np.isneginf(s)
    else:
        visible = np.asarray(allowed, dtype=bool)
        if visible.shape != s.shape:
            raise MaskattnError("mask_length", scores=n, mask=visible.shape[0] if visible.ndim else 1)
    kept = s[visible]
    if np.isnan(kept).any() or np.isposinf(kept).any():
        raise MaskattnError("softmax_nan_inf")
    kept = kept[~np.isneginf(kept)]  # -inf on a visible key: weight exactly 0, as blocked
    if kept.size == 0:
        if allowed is None or n == 0 or policy == "error" or visible.any():
            raise EmptyRowError("all_masked")
        if policy == "nan":
            return np.full(n, math.nan)
        if policy == "zeros":
            return np.zeros(n)
        return np.full(n, 1.0 / n)  # uniform: the leak a finite minimum causes
    weights = np.zeros(n)
    e = np.exp((kept - kept.max()) / temperature)
    # np.sum's pairwise sum, not math.fsum: on a 128k row fsum costs six times the exp.
    weights[visible & ~np.isneginf(s)] = e / e.sum()
    return weights
