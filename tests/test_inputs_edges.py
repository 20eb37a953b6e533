"""Typed values and explicit inputs at their edges (issue 12): numbers
beyond Python's 4,300-digit limit, ranges too large to build, scores
beyond the largest float."""

from __future__ import annotations

import math
import sys

import pytest

from maskattn_tui.errors import MaskattnError
from maskattn_tui.engine.matrices import scaled_scores
from maskattn_tui.explore import ExploreConfig
from maskattn_tui.explore.scenario_file import loads_scenario
from maskattn_tui.explore.session import ExploreSession

HUGE = "9" * 5000


def refused(outcome, session):
    new, problem = outcome
    assert new is session and problem is not None
    for lang in ("en", "zh"):
        message = problem.message(lang)
        assert len(message) < 300, len(message)
    return problem


@pytest.mark.parametrize("field", ["past", "new", "pad", "seed"])
def test_a_huge_whole_number_in_a_box_is_refused(field):
    s = ExploreSession(active=True)
    refused(s.set_field(field, HUGE), s)
    refused(s.set_field(field, "-" + HUGE), s)


def test_a_huge_number_in_the_temperature_box_is_refused():
    s = ExploreSession(active=True)
    refused(s.set_field("temperature", HUGE), s)


@pytest.mark.parametrize("text", [f"V[{HUGE}]=1", f"V[0-{HUGE}]=1", f"S[{HUGE},0]=1", f"S[0,{HUGE}]=1",
                                  f"V[0]={HUGE}", "V[0-99999999999999999999]=1"])
def test_huge_indexes_and_values_in_an_assignment_are_refused(text):
    s = ExploreSession(active=True)
    refused(s.assign(text), s)


def lines_run(call, budget: int | None = None):
    """(call(), the Python lines it ran): a count of work that does not
    depend on the machine's load, as a wall-clock bound would. Beyond
    `budget` lines the call is stopped (a test that fails, not one that hangs)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += event == "line"
        if budget is not None and count > budget:
            raise AssertionError(f"more than {budget} lines run")
        return tracer

    sys.settrace(tracer)
    try:
        return call(), count
    finally:
        sys.settrace(None)


def test_a_range_far_beyond_the_keys_is_refused_at_once():
    # at once: about the work of a range inside the keys, not one step per index of 100,000,000
    _, inside = lines_run(lambda: ExploreSession(active=True).assign("V[1-4]=7"))
    s = ExploreSession(active=True)
    outcome, _ = lines_run(lambda: s.assign("V[0-100000000]=1"), budget=3 * inside + 1000)
    problem = refused(outcome, s)
    assert str(s.config.length - 1) in problem.message("en")


def test_a_range_inside_the_keys_still_works():
    s = ExploreSession(active=True)  # past 3 + new 2: keys 0-4
    new, problem = s.assign("V[1-4]=7")
    assert problem is None and [k for k, _ in new.config.v_override] == [1, 2, 3, 4]


# --- scores beyond the largest float --------------------------------------------------


def test_a_score_beyond_the_largest_float_is_refused_with_its_place():
    q = ((1e308, 1e308), (1e308, -1e308))
    k = ((1e308, 1e308), (1e308, 1e308))
    with pytest.raises(MaskattnError) as info:
        scaled_scores(q, k)
    assert info.value.key == "scores_overflow"
    assert info.value.params["row"] == 0 and info.value.params["col"] == 0


def test_overflowing_products_whose_sum_is_a_float_are_computed_exactly():
    # 1e308 * 1e308 overflows, but the two products cancel: the score is 0.
    scores, scale = scaled_scores(((1e308, 1e308),), ((1e308, -1e308),))
    assert scores == ((0.0,),)
    # 1e200 * 1e200 * 2 / sqrt(2) is beyond the float range: refused; one product of
    # 1.5e308 (= 1e154 * 1.5e154) after 1/sqrt(1) is a float: kept.
    scores, _ = scaled_scores(((1e154,),), ((1.5e154,),))
    assert scores[0][0] == pytest.approx(1.5e308)


def test_a_scenario_file_with_such_scores_is_one_message():
    text = "past = 0\nnew = 2\nq = [[1e308, 1e308], [1e308, -1e308]]\nk = [[1e308, 1e308], [1e308, 1e308]]\n"
    with pytest.raises(MaskattnError) as info:
        loads_scenario(text, "big.toml")
    message = info.value.message("en")
    assert "big.toml" in message and "1.8e308" in message


def test_scores_of_ordinary_inputs_are_unchanged():
    q, k = ((1.0, 0.0), (0.0, 1.0)), ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
    scores, scale = scaled_scores(q, k)
    assert scale == 1 / math.sqrt(2)
    assert scores == ((1 / math.sqrt(2), 0.0, 1 / math.sqrt(2)), (0.0, 1 / math.sqrt(2), 1 / math.sqrt(2)))
