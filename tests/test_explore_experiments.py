"""Each experiment's claim, checked against hand-written tables (from
the chapter and the libraries' conventions) and numbers computed here independently."""

from __future__ import annotations

import math
import random

import pytest

from maskattn_tui.explore import ExploreConfig, causal_off, leak_probe, offset_bug, polarity_bug
from maskattn_tui.explore.experiments import row_delta


def rows(table) -> list[str]:
    """A bool table (or VisibilityTable) as strings of 1/0, one per row."""
    cells = table.allowed if hasattr(table, "allowed") else table
    return ["".join("1" if x else "0" for x in row) for row in cells]


def cells_of(strings: list[str]) -> set[tuple[int, int]]:
    return {(r, c) for r, s in enumerate(strings) for c, x in enumerate(s) if x == "1"}


def weights_by_hand(scores, allowed, temperature=1.0):
    exps = [math.exp(s / temperature) if ok else 0.0 for s, ok in zip(scores, allowed)]
    return [e / sum(exps) for e in exps]


# The chapter's toy input: Q = K = [[1,0],[0,1],[1,1]], V = 10, 20, 30.
CHAPTER = dict(past=0, new=3, q=[[1, 0], [0, 1], [1, 1]], k=[[1, 0], [0, 1], [1, 1]], v=[[10], [20], [30]])


# --- offset bug -----------------------------------------------------------------


def test_offset_bug_past3_new2_gives_the_issue_tables():
    res = offset_bug(ExploreConfig(past=3, new=2))
    assert rows(res.correct) == ["11110", "11111"]
    assert rows(res.wrong) == ["10000", "11000"]
    expected_diff = cells_of(["01110", "00111"])
    assert set(res.differing_cells) == expected_diff
    assert rows(res.differs) == ["01110", "00111"]
    # the cost: history hidden from the new queries; nothing extra revealed
    assert set(res.hidden) == expected_diff
    assert res.exposed == ()
    for r, j in res.hidden:
        assert res.correct_result.weights[r][j] > 0.0
        assert res.wrong_result.weights[r][j] == 0.0


def test_offset_bug_outputs_by_hand():
    # V = 10 x (j + 1); all scores equal (Q = 0): weights are uniform over visible keys
    c = ExploreConfig(past=3, new=2, q=[[0, 0], [0, 0]], k=[[1, 1]] * 5, v=[[10], [20], [30], [40], [50]])
    res = offset_bug(c)
    assert res.correct_result.outputs == (pytest.approx((25.0,)), pytest.approx((30.0,)))
    assert res.wrong_result.outputs == (pytest.approx((10.0,)), pytest.approx((15.0,)))
    assert res.output_change == pytest.approx((15.0, 15.0))


def test_offset_bug_with_left_pad_leaves_a_row_with_no_visible_key():
    res = offset_bug(ExploreConfig(past=3, new=2, pad=1, empty_row_policy="zeros"))
    assert rows(res.correct) == ["01110", "01111"]
    assert rows(res.wrong) == ["00000", "01000"]
    assert res.wrong_result.empty_rows == (0,)
    assert res.wrong_result.outputs[0] == (0.0,)


def test_no_cache_no_offset_bug():
    res = offset_bug(ExploreConfig(**CHAPTER))
    assert rows(res.correct) == rows(res.wrong) == ["100", "110", "111"]
    assert res.differing_cells == () and res.output_change == (0.0, 0.0, 0.0)


# --- leak probe ---------------------------------------------------------------------


def test_leak_probe_on_the_chapters_data():
    # the chapter's self-test: V at the future position 2 goes 30 -> 9999
    res = leak_probe(ExploreConfig(**CHAPTER), broken="causal-off")
    assert res.probe_keys == (1, 2)  # every key after the first query
    res = leak_probe(ExploreConfig(**CHAPTER), broken="causal-off", keys=[2])
    assert res.v_probe == ((10.0,), (20.0,), (9999.0,))
    assert res.guarded_rows == (0, 1)
    # The chapter's printed outputs, unchanged with the correct mask
    for result in (res.correct_before, res.correct_after):
        assert result.outputs[0][0] == pytest.approx(10.0, abs=1e-12)
        assert result.outputs[1][0] == pytest.approx(16.697615493266568, abs=1e-12)
    assert res.correct_change[0] <= 1e-12 and res.correct_change[1] <= 1e-12
    assert res.correct_unchanged
    # without the causal rule row 0 reads all three keys: recompute by hand
    s = [1 / math.sqrt(2), 0.0, 1 / math.sqrt(2)]
    w = weights_by_hand(s, [True] * 3)
    assert res.broken_after.outputs[0][0] == pytest.approx(w[0] * 10 + w[1] * 20 + w[2] * 9999, abs=1e-9)
    assert res.broken_before.outputs[0][0] == pytest.approx(w[0] * 10 + w[1] * 20 + w[2] * 30, abs=1e-12)
    assert res.leak_rows == (0, 1)
    assert res.broken_change[0] == pytest.approx(w[2] * (9999 - 30), abs=1e-9)


def test_leak_probe_with_the_offset_bug_changes_outputs_but_leaks_nothing():
    # top-left alignment with a cache hides history; it never shows the future
    res = leak_probe(ExploreConfig(past=3, new=2, q=[[0, 0], [0, 0]], k=[[1, 1]] * 5,
                                   v=[[10], [20], [30], [40], [50]]), broken="offset")
    assert res.probe_keys == (4,)
    assert res.guarded_rows == (0,)
    assert res.correct_unchanged
    assert res.leak_rows == ()
    assert res.changed_rows == (0, 1)
    assert res.broken_after.outputs[0] == pytest.approx((10.0,))  # q3 reads k0 only
    assert res.correct_after.outputs[0] == pytest.approx((25.0,))


def test_leak_probe_single_query_has_nothing_to_probe():
    res = leak_probe(ExploreConfig(past=4, new=1))
    assert res.probe_keys == () and res.guarded_rows == (0,)
    assert res.correct_unchanged and res.leak_rows == ()


def _probe_configs(n=150):
    rng = random.Random(7)
    for _ in range(n):
        past, new = rng.randint(0, 8), rng.randint(2, 8)
        yield ExploreConfig(
            past=past, new=new, pad=rng.randint(0, min(3, past + new)),
            pad_side=rng.choice(("left", "right")), temperature=rng.choice((1.0, 2.0)),
            empty_row_policy=rng.choice(("error", "nan", "zeros", "uniform")), seed=rng.randint(0, 999),
        )


@pytest.mark.parametrize("broken", ["causal-off", "offset"])
def test_leak_probe_claims_over_many_configurations(broken):
    for c in _probe_configs():
        res = leak_probe(c, broken=broken)
        n = c.length
        pads = set(range(c.pad)) if c.pad_side == "left" else set(range(n - c.pad, n))
        probed = [j for j in range(c.past + 1, n)]
        assert list(res.probe_keys) == probed
        # guarded rows, by hand: query at past + r sees no probed key
        guarded = [r for r in range(c.new) if not any(j <= c.past + r and j not in pads for j in probed)]
        assert list(res.guarded_rows) == guarded
        # the correct mask: outputs unchanged to 1e-12 - except a row with no
        # visible key under "uniform", which averages over forbidden keys too
        empty = [r for r in range(c.new) if not any(j <= c.past + r and j not in pads for j in range(n))]
        uniform_leaks = [r for r in guarded if r in empty and c.empty_row_policy == "uniform" and probed]
        assert [r for r in guarded if res.correct_change[r] > 1e-12] == uniform_leaks
        assert list(res.empty_leak_rows) == uniform_leaks
        assert res.correct_unchanged == (not uniform_leaks)
        # the broken table, by hand: causal off -> every non-PAD key; offset ->
        # the query at row r reads keys <= r (top-left)
        def sees(r, j):
            return j not in pads and (broken == "causal-off" or j <= r)

        expected = [
            r for r in guarded
            # reads a probed key (weights > 1e-5 with these inputs) ...
            if any(sees(r, j) for j in probed)
            # ... or sees nothing and "uniform" averages over every key
            or (probed and c.empty_row_policy == "uniform" and not any(sees(r, j) for j in range(n)))
        ]
        assert list(res.leak_rows) == expected
        if broken == "offset":  # top-left only hides history: no visible future key
            assert not any(sees(r, j) for r in guarded for j in probed)


def test_leak_probe_catches_the_uniform_policy_leak():
    # past 0, new 3, left PAD 2: rows 0 and 1 see no key; "uniform" spreads
    # weight over all three keys, so 9999 at key 2 reaches them
    c = ExploreConfig(past=0, new=3, pad=2, empty_row_policy="uniform", v=[[10], [20], [30]])
    res = leak_probe(c, keys=[2])
    assert res.guarded_rows == (0, 1)
    assert res.empty_leak_rows == (0, 1)
    assert res.correct_after.outputs[0][0] == pytest.approx((10 + 20 + 9999) / 3, abs=1e-9)
    assert not res.correct_unchanged
    zeros = leak_probe(c.replace(empty_row_policy="zeros"), keys=[2])
    assert zeros.correct_unchanged and zeros.empty_leak_rows == ()


def test_row_delta_rules():
    assert row_delta(None, None) == 0.0
    assert row_delta(None, (1.0,)) == math.inf
    assert row_delta((math.nan,), (math.nan,)) == 0.0
    assert row_delta((math.nan,), (1.0,)) == math.inf
    assert row_delta((1.0, 5.0), (1.5, 2.0)) == 3.0


def test_leak_probe_rejects_an_unknown_broken_mask():
    with pytest.raises(ValueError):
        leak_probe(ExploreConfig(), broken="none")


# --- polarity bug ---------------------------------------------------------------------


def test_polarity_bug_inverts_the_running_example():
    res = polarity_bug(ExploreConfig(past=3, new=2, empty_row_policy="zeros",
                                     v=[[10], [20], [30], [40], [50]]))
    assert rows(res.intended) == ["11110", "11111"]
    assert rows(res.effective) == ["00001", "00000"]
    assert res.future_visible == ((0, 4),)  # the future becomes visible
    assert set(res.hidden) == cells_of(["11110", "11111"])  # the past hidden
    assert res.pad_visible == ()
    assert res.empty_rows == (1,)
    # row 0 now reads only key 4: its output is V[4]; row 1 is empty -> zeros
    assert res.inverted_result.weights[0] == (0.0, 0.0, 0.0, 0.0, 1.0)
    assert res.inverted_result.outputs == ((50.0,), (0.0,))


def test_polarity_bug_with_pad_makes_pad_visible():
    res = polarity_bug(ExploreConfig(past=3, new=2, pad=1))
    assert rows(res.intended) == ["01110", "01111"]
    assert rows(res.effective) == ["10001", "10000"]
    assert set(res.pad_visible) == {(0, 0), (1, 0)}
    assert res.future_visible == ((0, 4),)


def test_polarity_bug_cell_by_cell_over_many_configurations():
    for c in _probe_configs(80):
        res = polarity_bug(c)
        assert [[not x for x in row] for row in res.intended.allowed] == [list(r) for r in res.effective]


# --- causal off ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, causal_rows, off_rows, newly",
    [
        (dict(past=3, new=2), ["11110", "11111"], ["11111", "11111"], {(0, 4)}),
        (dict(past=3, new=2, pad=1), ["01110", "01111"], ["01111", "01111"], {(0, 4)}),
        # right PAD at 3, 4: the future is PAD anyway, nothing new to see
        (dict(past=3, new=2, pad=2, pad_side="right"), ["11100", "11100"], ["11100", "11100"], set()),
        (CHAPTER, ["100", "110", "111"], ["111", "111", "111"], {(0, 1), (0, 2), (1, 2)}),
    ],
)
def test_causal_off_shows_every_valid_key(kwargs, causal_rows, off_rows, newly):
    res = causal_off(ExploreConfig(**kwargs))
    assert rows(res.causal) == causal_rows
    assert rows(res.off) == off_rows
    assert set(res.newly_visible) == newly


def test_causal_off_on_the_chapters_data_by_hand():
    res = causal_off(ExploreConfig(**CHAPTER))
    # causal: the chapter's printed weights
    assert res.causal_result.weights[1] == pytest.approx((0.3302384506733431, 0.6697615493266569, 0.0), abs=1e-12)
    # off: row 1 (q = [0, 1]) reads all keys; scores 0, 1/sqrt2, 1/sqrt2
    s = 1 / math.sqrt(2)
    w = weights_by_hand([0.0, s, s], [True] * 3)
    assert res.off_result.weights[1] == pytest.approx(w, abs=1e-12)
    assert res.output_change[2] == 0.0  # the last row had no future anyway


def test_every_experiment_as_strict_json_in_both_languages():
    import json

    from maskattn_tui.explore import EXPERIMENTS, experiment_data, run_experiment

    c = ExploreConfig(past=1, new=3, pad=2, empty_row_policy="nan")  # NaN rows on purpose
    for lang in ("en", "zh"):
        for name in EXPERIMENTS:
            data = experiment_data(name, run_experiment(name, c), lang)
            text = json.dumps(data, allow_nan=False, ensure_ascii=False)
            back = json.loads(text)
            assert back["experiment"] == name and back["title"] and back["claim"]
    data = experiment_data("offset-bug", run_experiment("offset-bug", ExploreConfig()))
    assert data["wrong"]["allowed"] == [[True, False, False, False, False], [True, True, False, False, False]]
    assert data["differing_cells"] == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [1, 4]]
    assert data["wrong"]["cells"][0][1] == "future"
    leak = experiment_data("leak-probe", run_experiment("leak-probe", ExploreConfig(**CHAPTER)), "zh")
    assert leak["correct_unchanged"] is True and leak["leak_rows"] == [0]
    assert leak["title"] == "泄漏探针"
    nan_rows = experiment_data("polarity-bug", run_experiment("polarity-bug", c))
    assert nan_rows["correct_result"]["outputs"][0] == [None]  # NaN -> null
    assert nan_rows["correct_result"]["weights"][0] == [None] * 4
