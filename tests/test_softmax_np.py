"""The softmax of a numpy row (engine.softmax_np) is the engine's softmax:
checked against the list path (math.exp, math.fsum) on the same rows, and
against a softmax written out here from its definition."""

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maskattn_tui.engine.softmax import EMPTY_ROW_POLICIES, masked_softmax, stable_softmax
from maskattn_tui.errors import EmptyRowError, MaskattnError

finite = st.floats(-1e4, 1e4, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(finite, st.booleans()), min_size=1, max_size=40),
       st.sampled_from([0.25, 1.0, 3.0]), st.sampled_from(EMPTY_ROW_POLICIES[1:]))
def test_a_numpy_row_gives_the_weights_of_the_list_row(cells, temperature, policy):
    scores = [s for s, _ in cells]
    allowed = [ok for _, ok in cells]
    got = masked_softmax(np.array(scores), np.array(allowed), temperature, policy)
    assert isinstance(got, np.ndarray)
    want = masked_softmax(scores, allowed, temperature, policy)
    assert got.tolist() == pytest.approx(want, abs=1e-12, nan_ok=True)
    blocked = [i for i, ok in enumerate(allowed) if not ok]
    if any(allowed):
        assert all(got[i] == 0.0 for i in blocked)


def test_the_definition_by_hand():
    # exp((s - max) / T) / sum over the visible keys 0 and 2: scores 1 and 3, T = 2.
    got = masked_softmax(np.array([1.0, 50.0, 3.0]), np.array([True, False, True]), 2.0)
    a, b = math.exp((1 - 3) / 2), 1.0
    assert got.tolist() == [pytest.approx(a / (a + b), abs=1e-15), 0.0, pytest.approx(b / (a + b), abs=1e-15)]


def test_large_scores_do_not_overflow():
    got = stable_softmax(np.array([1000.0, 1001.0, 1002.0]))
    assert got.tolist() == pytest.approx(stable_softmax([0, 1, 2]), abs=1e-12)


@pytest.mark.parametrize("policy, want", [("nan", [math.nan] * 3), ("zeros", [0.0] * 3), ("uniform", [1 / 3] * 3)])
def test_an_empty_row_follows_the_policy(policy, want):
    got = masked_softmax(np.zeros(3), np.zeros(3, dtype=bool), 1.0, policy)
    assert got.tolist() == pytest.approx(want, nan_ok=True)


@pytest.mark.parametrize("scores, allowed, key", [
    ([0.0, 1.0], [False, False], "all_masked"),
    ([-math.inf, 1.0], [True, False], "all_masked"),
    ([math.nan, 1.0], [True, True], "softmax_nan_inf"),
    ([math.inf, 1.0], [True, True], "softmax_nan_inf"),
    ([0.0, 1.0], [True], "mask_length"),
])
def test_the_same_refusals(scores, allowed, key):
    for s, a in ((scores, allowed), (np.array(scores), np.array(allowed))):
        with pytest.raises((EmptyRowError, MaskattnError)) as list_or_numpy:
            masked_softmax(s, a)
        assert list_or_numpy.value.key == key


def test_a_nan_on_a_blocked_key_is_not_read():
    got = masked_softmax(np.array([math.nan, 2.0]), np.array([False, True]))
    assert got.tolist() == [0.0, 1.0]


def test_a_list_does_not_import_numpy():
    code = ("import sys\nfrom maskattn_tui.engine.softmax import masked_softmax\n"
            "masked_softmax([1.0, 2.0], [True, False], 1.0, 'zeros')\nprint('numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
