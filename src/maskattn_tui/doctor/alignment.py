"""Polarity and alignment, decided together.

Four hypotheses: {True/1/0.0 = attend, = blocked} x {offset S-L
(bottom-right, right for a KV cache), offset 0 (top-left, row-index based)}.
Each is scored by the fraction of non-empty rows whose last visible key is
the row's own position ``row + offset``. Reading polarity off the
bottom-right diagonal alone would call a top-left mask inverted; scoring
both together does not. A best score of 0.5 or less means no causal order
(e.g. an all-visible mask scores 1/L): alignment "none".

What the diagnosis (doctor.diagnosis) takes from `decide`: its polarity as
the vote when the simplest readings of both polarities tie (only when a
diagonal fits every row: score 1.0), and the scored table for --json. The
polarity and alignment it reports are those of the reading it chose."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.rows import RowStats
from maskattn_tui.doctor.rules import causal_last

#: Above this a hypothesis is taken as the mask's causal order.
CAUSAL_SCORE = 0.5


@dataclass(frozen=True)
class Alignment:
    polarity: str
    alignment: str  # "bottom-right" | "top-left" | "none"
    offset: int  # query row r is position r + offset (S - L when "none")
    score: float
    #: every hypothesis scored: ((polarity, alignment, score), ...)
    scores: tuple[tuple[str, str, float], ...]


def score(stats: RowStats, offset: int) -> float:
    seen = ~stats.empty
    total = int(seen.sum())
    if total == 0:
        return 0.0
    own = causal_last(np.arange(len(stats.hi)) + offset, stats.keys)
    return float(np.count_nonzero(seen & (stats.hi == own))) / total


def decide(attend: RowStats, blocked: RowStats, rows: int, keys: int, polarity: str | None = None) -> Alignment:
    """The best-scored hypothesis (ties: attend before blocked, bottom-right
    before top-left) and every score; `polarity` fixes the polarity (the
    user said so). The diagnosis votes with it on a tie (module note)."""
    bottom_right = keys - rows
    offsets = [("bottom-right", bottom_right)] + ([("top-left", 0)] if bottom_right != 0 else [])
    scored = []
    for pol, stats in (("attend", attend), ("blocked", blocked)):
        for name, offset in offsets:
            scored.append((pol, name, offset, score(stats, offset)))
    allowed = [s for s in scored if polarity is None or s[0] == polarity]
    best = max(allowed, key=lambda s: s[3])  # max keeps the first of equals
    table = tuple((pol, name, round(value, 4)) for pol, name, _, value in scored)
    if best[3] <= CAUSAL_SCORE:
        return Alignment(polarity or "attend", "none", bottom_right, best[3], table)
    return Alignment(best[0], best[1], best[2], best[3], table)
