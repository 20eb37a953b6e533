"""The stable softmax and the masked softmax with its empty-row policies."""

import math

import pytest

from maskattn_tui.errors import EmptyRowError, MaskattnError
from maskattn_tui.engine.softmax import EMPTY_ROW_POLICIES, masked_softmax, stable_softmax

# The chapter's printed values.
SOFTMAX_012 = [0.09003057317038046, 0.24472847105479764, 0.6652409557748218]


def test_softmax_matches_the_chapter():
    assert stable_softmax([0, 1, 2]) == pytest.approx(SOFTMAX_012, abs=1e-12)


def test_large_scores_do_not_overflow_and_shift_invariance():
    p = stable_softmax([1000, 1001, 1002])
    assert abs(math.fsum(p) - 1) < 1e-12
    assert p == pytest.approx(SOFTMAX_012, abs=1e-12)


def test_temperature_divides_the_scores():
    # softmax([0, 2] / 2) = softmax([0, 1]) = [1/(1+e), e/(1+e)]
    e = math.e
    assert stable_softmax([0, 2], temperature=2) == pytest.approx([1 / (1 + e), e / (1 + e)], abs=1e-15)


@pytest.mark.parametrize(
    "values, temperature, key",
    [
        ([], 1.0, "softmax_empty"),
        ([1.0], 0.0, "temperature"),
        ([1.0], -2.0, "temperature"),
        ([1.0], math.inf, "temperature"),
        ([1.0], math.nan, "temperature"),
        ([math.nan, 0.0], 1.0, "softmax_nan_inf"),
        ([math.inf, 0.0], 1.0, "softmax_nan_inf"),
        ([-math.inf, -math.inf], 1.0, "all_masked"),
    ],
    ids=["empty", "zero-T", "negative-T", "inf-T", "nan-T", "nan-score", "inf-score", "all-masked"],
)
def test_refusals(values, temperature, key):
    with pytest.raises(MaskattnError) as info:
        stable_softmax(values, temperature)
    assert info.value.key == key
    assert info.value.message("zh") != info.value.message("en")


def test_minus_inf_gives_exact_zero():
    p = stable_softmax([0.0, 1.0, -math.inf])
    assert p[2] == 0.0
    assert p[:2] == pytest.approx([1 / (1 + math.e), math.e / (1 + math.e)], abs=1e-15)


def test_masked_softmax_blocked_cells_are_exact_zero():
    p = masked_softmax([5.0, 1.0, 2.0], [False, True, True])
    assert p[0] == 0.0
    assert math.fsum(p) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("policy", EMPTY_ROW_POLICIES)
def test_empty_row_policies(policy):
    scores, allowed = [3.0, -1.0, 0.5, 2.0], [False] * 4
    if policy == "error":
        with pytest.raises(EmptyRowError):
            masked_softmax(scores, allowed, policy=policy)
        return
    p = masked_softmax(scores, allowed, policy=policy)
    expected = {"nan": None, "zeros": [0.0] * 4, "uniform": [0.25] * 4}[policy]
    if expected is None:
        assert all(math.isnan(x) for x in p)
    else:
        assert p == expected


def test_unknown_policy_is_refused():
    with pytest.raises(MaskattnError) as info:
        masked_softmax([1.0], [True], policy="ignore")
    assert info.value.key == "policy"
