"""Numbers as every drawing writes them: probabilities to 4 decimals, −∞
spelled by the palette, counts with thousands separators."""

from __future__ import annotations

import math


def fmt(x: float, digits: int = 4, palette=None) -> str:
    """A number as the screen shows it; -inf spelled out."""
    if x == -math.inf:
        return palette.glyphs.neg_inf if palette else "-inf"
    if math.isnan(x):
        return "NaN"
    return f"{x:.{digits}f}"


def count(n: int) -> str:
    """A count with thousands separators: 75,503,616 (both languages)."""
    return f"{n:,}"
