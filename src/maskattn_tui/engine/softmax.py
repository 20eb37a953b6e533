"""A numerically stable softmax that refuses what the chapter refuses, and the
masked softmax with an explicit policy for a row that has no visible key."""

from __future__ import annotations

import math
from collections.abc import Sequence

from maskattn_tui.errors import EmptyRowError, MaskattnError

NEG_INF = -math.inf

#: What to do with a query row whose every key is blocked.
#:   error   - refuse (the chapter's choice; the engine's default)
#:   nan     - what plain softmax over all -inf gives: 0/0
#:   zeros   - what torch's scaled_dot_product_attention returns since 2.5
#:   uniform - what a finite "big negative" gives: equal weight on forbidden keys
EMPTY_ROW_POLICIES = ("error", "nan", "zeros", "uniform")


def check_temperature(temperature: float) -> float:
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool):
        raise MaskattnError("temperature", value=temperature)
    if not math.isfinite(temperature) or temperature <= 0:
        raise MaskattnError("temperature", value=temperature)
    return float(temperature)


def check_policy(policy: str) -> str:
    if policy not in EMPTY_ROW_POLICIES:
        raise MaskattnError("policy", value=policy, choices=", ".join(EMPTY_ROW_POLICIES))
    return policy


def _numpy(*values) -> bool:
    # Told by the type's module, so that a list never imports numpy.
    return any(type(v).__module__ == "numpy" for v in values)


def stable_softmax(values: Sequence[float], temperature: float = 1.0) -> list[float]:
    """softmax(values / temperature), shifted by the maximum so that large
    scores (1000, 1001, 1002) do not overflow. -inf entries get exactly 0.
    A numpy row gives a numpy row (engine.softmax_np, the same rule)."""
    if _numpy(values):
        from maskattn_tui.engine.softmax_np import softmax_row
        return softmax_row(values, None, check_temperature(temperature))
    if len(values) == 0:
        raise MaskattnError("softmax_empty")
    temperature = check_temperature(temperature)
    if any(math.isnan(x) or x == math.inf for x in values):
        raise MaskattnError("softmax_nan_inf")
    top = max(values)
    if top == NEG_INF:
        raise EmptyRowError("all_masked")
    exps = [math.exp((x - top) / temperature) for x in values]
    total = math.fsum(exps)
    return [x / total for x in exps]


def masked_softmax(
    scores: Sequence[float],
    allowed: Sequence[bool],
    temperature: float = 1.0,
    policy: str = "error",
) -> list[float]:
    """Softmax over the allowed cells only; blocked cells get exactly 0.0.

    A row with no allowed cell follows `policy` (see EMPTY_ROW_POLICIES).
    Numpy scores or mask give a numpy row (engine.softmax_np, the same rule)."""
    check_policy(policy)
    if _numpy(scores, allowed):
        from maskattn_tui.engine.softmax_np import softmax_row
        return softmax_row(scores, allowed, check_temperature(temperature), policy)
    if len(scores) != len(allowed):
        raise MaskattnError("mask_length", scores=len(scores), mask=len(allowed))
    if not any(allowed):
        n = len(scores)
        if n == 0 or policy == "error":
            raise EmptyRowError("all_masked")
        if policy == "nan":
            return [math.nan] * n
        if policy == "zeros":
            return [0.0] * n
        return [1.0 / n] * n  # uniform: the leak a finite minimum causes
    return stable_softmax([s if ok else NEG_INF for s, ok in zip(scores, allowed)], temperature)
