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
        visible, kept = None, s
    else:
        visible = np.asarray(allowed, dtype=bool)
        if visible.shape != s.shape:
            raise MaskattnError("mask_length", scores=n, mask=visible.shape[0] if visible.ndim else 1)
        kept = s[visible]
    if kept.size == 0:  # no allowed key
        if n == 0 or policy == "error":
            raise EmptyRowError("all_masked")
        if policy == "nan":
            return np.full(n, math.nan)
        if policy == "zeros":
            return np.zeros(n)
        return np.full(n, 1.0 / n)  # uniform: the leak a finite minimum causes
    top = kept.max()  # NaN if any is NaN: one pass finds NaN, +inf and the shift
    if math.isnan(top) or top == math.inf:
        raise MaskattnError("softmax_nan_inf")
    if top == -math.inf:
        raise EmptyRowError("all_masked")
    e = np.exp((kept - top) / temperature)  # a -inf score gets exactly 0
    # np.sum's pairwise sum, not math.fsum: on a 128k row fsum costs six times the exp.
    e /= e.sum()
    if visible is None:
        return e
    weights = np.zeros(n)
    weights[visible] = e
    return weights
