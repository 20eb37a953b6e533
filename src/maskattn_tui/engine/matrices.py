"""Validation of Q, K, V and the scaled dot-product scores."""

from __future__ import annotations

import math
from collections.abc import Sequence

from maskattn_tui.errors import MaskattnError

Matrix = tuple[tuple[float, ...], ...]


def validate_matrix(a: Sequence[Sequence[float]], name: str) -> Matrix:
    """A non-empty rectangular matrix of finite numbers, as tuples."""
    if not isinstance(a, (list, tuple)) or len(a) == 0:
        raise MaskattnError("matrix_empty", name=name)
    if any(not isinstance(row, (list, tuple)) for row in a):
        raise MaskattnError("matrix_not_rows", name=name)
    width = len(a[0])
    if width == 0:
        raise MaskattnError("matrix_empty", name=name)
    for i, row in enumerate(a):
        if len(row) != width:
            raise MaskattnError("matrix_ragged", name=name, row=i, got=len(row), want=width)
        for j, x in enumerate(row):
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise MaskattnError("matrix_not_number", name=name, row=i, col=j, value=x)
            if not math.isfinite(x):
                raise MaskattnError("matrix_nonfinite", name=name, row=i, col=j, value=x)
    return tuple(tuple(float(x) for x in row) for row in a)


def validate_qkv(q, k, v) -> tuple[Matrix, Matrix, Matrix]:
    q, k, v = validate_matrix(q, "Q"), validate_matrix(k, "K"), validate_matrix(v, "V")
    if len(q[0]) != len(k[0]):
        raise MaskattnError("dim_qk", dq=len(q[0]), dk=len(k[0]))
    if len(k) != len(v):
        raise MaskattnError("dim_kv", nk=len(k), nv=len(v))
    return q, k, v


def _score(qi: Sequence[float], kj: Sequence[float], scale: float, row: int, key: int) -> float:
    try:
        dot = math.fsum(a * b for a, b in zip(qi, kj))
    except (ValueError, OverflowError):  # inf - inf, or a sum beyond the float range
        dot = math.nan
    if math.isfinite(dot):
        return dot * scale
    # A product beyond the float range (1e308 * 1e308): the exact score may
    # still be a float (products that cancel); if not, it cannot be computed.
    from fractions import Fraction

    exact = sum((Fraction(a) * Fraction(b) for a, b in zip(qi, kj)), Fraction(0)) * Fraction(scale)
    try:
        return float(exact)
    except OverflowError:
        raise MaskattnError("scores_overflow", row=row, col=key) from None


def scaled_scores(q: Matrix, k: Matrix) -> tuple[Matrix, float]:
    """(q . k) / sqrt(d) for every query row and key; also the scale 1/sqrt(d).
    A score beyond the largest float raises MaskattnError "scores_overflow"."""
    scale = 1.0 / math.sqrt(len(k[0]))
    scores = tuple(tuple(_score(qi, kj, scale, i, j) for j, kj in enumerate(k)) for i, qi in enumerate(q))
    return scores, scale


def mix(weights: Sequence[float], v: Matrix) -> tuple[float, ...]:
    """weights x V for one row."""
    return tuple(
        math.fsum(w * v[j][d] for j, w in enumerate(weights)) for d in range(len(v[0]))
    )
