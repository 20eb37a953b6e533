"""The explorer's seeded inputs drawn for many positions at once
(scale.inputs) are the explorer's own values (explore.config: one
random.Random per position), and the last row of a causal 131,072 x 131,072
table gets the numbers a dense computation over those values gives."""

import math

import numpy as np
import pytest

from maskattn_tui.explore.config import INPUT_DIM, QK_RANGE, V_FACTOR_RANGE, V_STEP, _draw, _rng
from maskattn_tui.scale.explore_big import big_config, overview, row_numbers
from maskattn_tui.scale.inputs import draws
from maskattn_tui.maskmode.rule_doc import RuleDoc

# every length of position text from 1 to 7 digits, and its edges
POSITIONS = [*range(0, 300), *range(995, 1005), *range(9990, 10010), *range(99990, 100010),
             *range(131060, 131072), *range(999990, 1000010), 1048575]


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1])
@pytest.mark.parametrize("matrix,count,lo,hi", [("k", 2, -2, 2), ("v", 1, 1, 9), ("q", 2, -2, 2)])
def test_draws_are_the_explorers_values(monkeypatch, seed, matrix, count, lo, hi):
    import maskattn_tui.scale.inputs as inputs

    monkeypatch.setattr(inputs, "FEW", 0)  # the vector pass, however few the positions
    want = np.array([_draw(_rng(seed, matrix, p), count, lo, hi) for p in POSITIONS])
    np.testing.assert_array_equal(draws(seed, matrix, POSITIONS, count, lo, hi), want)


def test_a_generator_that_runs_out_of_outputs_is_drawn_by_random(monkeypatch):
    import maskattn_tui.scale.inputs as inputs

    monkeypatch.setattr(inputs, "OUTPUTS", 2)  # 2 outputs rarely give two draws below 5 of 8
    monkeypatch.setattr(inputs, "FEW", 0)
    want = np.array([_draw(_rng(0, "k", p), 2, -2, 2) for p in range(200)])
    np.testing.assert_array_equal(draws(0, "k", range(200), 2, -2, 2), want)


def test_few_positions_are_the_explorers_values_too():
    want = np.array([_draw(_rng(3, "k", p), 2, -2, 2) for p in POSITIONS[:50]])
    np.testing.assert_array_equal(draws(3, "k", POSITIONS[:50], 2, -2, 2), want)
    assert draws(3, "v", [], 1, 1, 9).shape == (0, 1)


@pytest.mark.slow
def test_the_last_causal_row_of_131072_equals_a_dense_computation():
    n = 131072
    (lo, hi), (vlo, vhi) = QK_RANGE, V_FACTOR_RANGE
    k = np.array([_draw(_rng(0, "k", j), INPUT_DIM, lo, hi) for j in range(n)], dtype=float)
    v = np.array([_draw(_rng(0, "v", j), 1, vlo, vhi)[0] * V_STEP for j in range(n)], dtype=float)
    q = np.array(_draw(_rng(0, "q", n - 1), INPUT_DIM, lo, hi), dtype=float)
    s = k @ q / math.sqrt(INPUT_DIM)
    w = np.exp(s - s.max())
    w /= w.sum()
    config = big_config(dict(past=0, new=n))
    got = RuleDoc(config).weights(n - 1)
    assert got.count == n
    np.testing.assert_allclose(got.weights, w, rtol=1e-12, atol=1e-18)
    numbers = row_numbers(config, overview(config)[0], n - 1)
    assert numbers.output == pytest.approx(float(w @ v), rel=1e-12)
    assert numbers.top[0][0] == int(np.argmax(w))
