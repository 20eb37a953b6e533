"""The chapter's verification experiments, run on this project's engine.

Each check returns a CheckResult; `maskattn-tui check` prints them and exits
0 only if all pass. The oracles are the numbers the chapter printed
(data/chapter_run.json), not values computed by the code under test."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from maskattn_tui.engine.attention import attend
from maskattn_tui.errors import EmptyRowError, MaskattnError
from maskattn_tui.engine.softmax import NEG_INF, stable_softmax
from maskattn_tui.engine.visibility import build_table, cache_positions, row_number_table


@dataclass(frozen=True)
class CheckResult:
    id: str
    passed: bool
    detail: dict  # numbers for the message templates


@lru_cache(maxsize=1)
def chapter_run() -> dict:
    path = resources.files("maskattn_tui") / "data" / "chapter_run.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _close(a, b, tol) -> bool:
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    return abs(a - b) <= tol


def check_large_scores() -> CheckResult:
    p = stable_softmax([1000.0, 1001.0, 1002.0])
    total = math.fsum(p)
    return CheckResult("large_scores", abs(total - 1.0) < 1e-12 and all(map(math.isfinite, p)),
                       {"sum": f"{total:.17g}"})


def check_refusals() -> CheckResult:
    """Empty input, bad temperatures, NaN/+inf scores and an all-masked row
    must each be refused with an error, not answered."""
    cases = [
        ([], 1.0), ([1.0], 0.0), ([1.0], -1.0), ([1.0], math.inf), ([1.0], math.nan),
        ([math.nan, 1.0], 1.0), ([math.inf, 1.0], 1.0), ([NEG_INF, NEG_INF], 1.0),
    ]
    refused = 0
    for values, temperature in cases:
        try:
            stable_softmax(values, temperature)
        except MaskattnError:
            refused += 1
    return CheckResult("refusals", refused == len(cases), {"refused": refused, "cases": len(cases)})


def _causal(run, v=None):
    table = build_table([0, 1, 2], [0, 1, 2], None, causal=True)
    return attend(run["q"], run["k"], v or run["v"], table)


def check_blocked_exact_zero() -> CheckResult:
    w = _causal(chapter_run()).weights
    blocked = [w[0][1], w[0][2], w[1][2]]
    return CheckResult("blocked_zero", all(x == 0.0 for x in blocked), {"values": blocked})


def check_future_value() -> CheckResult:
    run = chapter_run()
    before = _causal(run).outputs
    changed_v = [list(r) for r in run["v"]]
    changed_v[2][0] = 9999.0
    after = _causal(run, changed_v).outputs
    ok = before[:2] == after[:2] and before[2] != after[2]
    return CheckResult("future_value", ok, {
        "before": [round(o[0], 6) for o in before], "after": [round(o[0], 6) for o in after],
    })


def _leaks(query_positions, key_positions, past, new) -> bool:
    """Does changing the values of keys in the queries' true future change
    any output? (The tell-tale data of the chapter: 9999 at future keys.)"""
    q = [[1.0, float(r % 2)] for r in range(new)]
    k = [[float(j % 3 == 0), 1.0] for j in range(past + new)]
    v = [[10.0 * (j + 1)] for j in range(past + new)]
    table = build_table(query_positions, key_positions, None, causal=True)
    base = attend(q, k, v, table, policy="zeros").outputs
    for row, true_pos in enumerate(range(past, past + new)):
        probe = [[9999.0] if j > true_pos else list(v[j]) for j in range(past + new)]
        if attend(q, k, probe, table, policy="zeros").outputs[row] != base[row]:
            return True
    return False


def check_wrong_offset() -> CheckResult:
    """With a cache (past=3, new=2) the correct offset shows no leak, an
    offset one too large leaks, and row numbers hide the history."""
    past, new = 3, 2
    qpos, kpos = cache_positions(past, new)
    correct_leaks = _leaks(qpos, kpos, past, new)
    plus_one_leaks = _leaks([p + 1 for p in qpos], kpos, past, new)
    correct = build_table(qpos, kpos)
    wrong = row_number_table(correct)
    hidden = sum(a.allowed and not b.allowed for ra, rb in zip(correct.cells, wrong.cells) for a, b in zip(ra, rb))
    ok = (not correct_leaks) and plus_one_leaks and hidden > 0
    return CheckResult("wrong_offset", ok, {
        "correct_leaks": correct_leaks, "plus_one_leaks": plus_one_leaks, "hidden": hidden,
    })


def check_chapter_numbers() -> CheckResult:
    run = chapter_run()
    tol = run["tolerance"]
    result = _causal(run)
    p = stable_softmax([0.0, 1.0, 2.0])
    weighted = math.fsum(a * b for a, b in zip(p, [10.0, 20.0, 30.0]))
    ok = (
        _close(p, run["softmax_0_1_2"], tol)
        and _close(weighted, run["weighted_10_20_30"], tol)
        and _close([list(w) for w in result.weights], run["causal_weights"], tol)
        and _close([list(o) for o in result.outputs], run["outputs"], tol)
    )
    return CheckResult("chapter_numbers", ok, {
        "outputs": [round(o[0], 12) for o in result.outputs], "weighted": round(weighted, 12),
    })


def check_empty_row_refused() -> CheckResult:
    table = build_table([0], [0, 1], [True, True], causal=True)
    try:
        attend([[1.0]], [[1.0], [2.0]], [[1.0], [2.0]], table)
    except EmptyRowError:
        return CheckResult("empty_row", True, {})
    return CheckResult("empty_row", False, {})


CHECKS = (
    check_large_scores,
    check_refusals,
    check_blocked_exact_zero,
    check_future_value,
    check_wrong_offset,
    check_chapter_numbers,
    check_empty_row_refused,
)


def run_checks() -> list[CheckResult]:
    return [check() for check in CHECKS]
