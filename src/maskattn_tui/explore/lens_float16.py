"""What Hugging Face's eager attention gives a row with no visible key in
float16, for the configuration's own scores.

eager_attention_forward adds the mask, finfo(float16).min = -65504, to the
float16 scores and takes the softmax in float32. Near 65504 float16 is
spaced 32 apart, so a scaled score s is absorbed (-65504 + s rounds back to
-65504) only for -16 < s < 16; s <= -16 rounds to -inf and s >= 16 to a
higher step, which then takes (nearly) all the weight. float32 and bfloat16
are spaced ~1e31 there and absorb any real score: uniform. Plain Python:
struct's "e" format is IEEE half precision, rounded to nearest-even."""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

FLOAT16_MIN = -65504.0


def to_float16(x: float) -> float:
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:  # rounds beyond float16's largest finite value
        return math.copysign(math.inf, x)


def masked_row(scores: Sequence[float]) -> tuple[str, list[float] | None]:
    """("uniform" | "nan" | "scores", the weights or None for NaN) of a
    row whose every key carries the float16 mask."""
    sums = [to_float16(to_float16(s) + FLOAT16_MIN) for s in scores]
    top = max(sums)
    if top == -math.inf:
        return "nan", None
    exps = [math.exp(s - top) for s in sums]
    total = sum(exps)
    weights = [to_float16(e / total) for e in exps]  # softmax in float32, then .to(float16)
    return ("uniform" if len(set(sums)) == 1 else "scores"), weights


def float16_verdict(rows: Sequence[int], scores: Sequence[Sequence[float]]) -> tuple[str, int | None, list | None]:
    """Over `rows` of the scaled scores (the model's q.k * scaling): the
    policy they share ("uniform" / "nan" / "scores"; "scores" also when they
    differ), the first row that is not uniform, and its weights."""
    results = [(r, *masked_row(scores[r])) for r in rows]
    odd = [(r, policy, w) for r, policy, w in results if policy != "uniform"]
    if not odd:
        return "uniform", None, None
    policies = {policy for _, policy, _ in results}
    row, policy, weights = odd[0]
    return (policy if len(policies) == 1 else "scores"), row, weights
