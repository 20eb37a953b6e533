"""Choosing the reading: every family's candidate is compared with the mask,
scored by its description length plus one per differing cell, and the
least wins; readings of equal score are all kept (the report names each).

    best = best_readings(reading, stats)     # [Scored, ...], best first
    best[0].family, best[0].rule, best[0].comparison.count

Candidates are tried cheapest first (a tree by its least cost) and the search stops once a
candidate's cost alone exceeds the best score found (`bound` carries a
score over from the other polarity), so a mask that one cheap rule reads
exactly costs a handful of comparisons.

When no reading is exact, an exact one a little less simple (EXACT_SLACK
more) is chosen instead (doctor.diagnosis): a correct mask of a rarer family
(documents with a window, a two-token block) must not be told it is broken."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.compare import Comparison, compare
from maskattn_tui.doctor.families import ORDER, cost, family_of
from maskattn_tui.doctor.families import candidates as family_candidates
from maskattn_tui.doctor.representation import Reading
from maskattn_tui.doctor.rows import RowStats
from maskattn_tui.doctor.rules import Rule

#: Readings of equal score kept (beyond these the report says "and more").
TIES_KEPT = 6
#: How much more an exact reading may cost than an inexact best and still be named.
EXACT_SLACK = 2


@dataclass(frozen=True)
class Scored:
    name: str  # the pattern: causal | bidirectional | window | chunk | documents | prefix | tree | blocks | globals
    family: str
    rule: Rule
    cost: int
    comparison: Comparison

    @property
    def score(self) -> int:
        return self.cost + self.comparison.count

    @property
    def exact(self) -> bool:
        return self.comparison.count == 0


def _rank(name: str, rule) -> int:
    if callable(rule):  # made later: a tree, robust documents, global tokens (never causal)
        return ORDER.index("global-window" if name == "globals" else name)
    return ORDER.index(family_of(name, rule))


def _least_differences(stats: RowStats, rule: Rule) -> int:
    """A lower bound on the cells `rule` gets wrong: per row, the difference
    of the visible counts (0 when the rule's rows are not runs)."""
    runs = rule.intervals()
    if runs is None:
        return 0
    lo, hi = runs
    return int(np.abs(stats.count - np.maximum(0, hi - lo + 1)).sum())


def best_readings(reading: Reading, stats: RowStats, bound: int | None = None, exact_only: bool = False,
                  seen=None, counts=None) -> list[Scored]:
    """The readings of least score (at most `bound`), fewest differing
    cells first, then by cost and family order; [] if none scores within
    `bound`. `exact_only`: only readings that match every cell. `seen`:
    the keys some row sees, and `counts`, how many rows see each key, if
    known (doctor.rows.column_counts)."""
    found = family_candidates(reading, stats, seen, counts)
    items = sorted(((c, _rank(n, r), i, n, r) for i, (n, c, r) in enumerate(found)),
                   key=lambda item: item[:3])
    best: list[Scored] = []
    limit = bound
    seen: set = set()
    for c, _, _, name, rule in items:
        if limit is not None and c > limit:
            break
        if callable(rule):  # a tree, robust documents: the cost is known once made
            rule = rule()
            if rule is None:
                continue
            c = cost(rule)
            if limit is not None and c > limit:
                continue
        key = (name, tuple(sorted(rule.describe().items(), key=lambda kv: kv[0])).__repr__())
        if key in seen:
            continue
        seen.add(key)
        if limit is not None and c + _least_differences(stats, rule) > limit:
            continue  # cannot win: skip reading the mask
        result = compare(reading, stats, rule)
        if exact_only and result.count:
            continue
        scored = Scored(name, family_of(name, rule), rule, c, result)
        if limit is None or scored.score < limit or (scored.score == limit and not best and bound is not None):
            best, limit = [scored], scored.score
        elif scored.score == limit and len(best) < TIES_KEPT:
            best.append(scored)
    best.sort(key=lambda s: (s.comparison.count, s.cost, ORDER.index(s.family)))
    return best
