"""Properties of the table and attention over many generated configurations,
checked against a second, naive formula written here."""

import math
import random

import pytest

from maskattn_tui.engine.attention import attend
from maskattn_tui.errors import MaskattnError
from maskattn_tui.engine.softmax import EMPTY_ROW_POLICIES
from maskattn_tui.engine.visibility import Cell, build_table, cache_positions, classify, row_number_table


def configurations(n=400, seed=12):
    rng = random.Random(seed)
    for _ in range(n):
        past, new = rng.randint(0, 8), rng.randint(1, 8)
        total = past + new
        pad = min(rng.randint(0, 3), total)
        side = rng.choice(["left", "right"])
        pad_flags = [False] * total
        for j in (range(pad) if side == "left" else range(total - pad, total)):
            pad_flags[j] = True
        d = rng.randint(1, 4)
        q = [[rng.uniform(-3, 3) for _ in range(d)] for _ in range(new)]
        k = [[rng.uniform(-3, 3) for _ in range(d)] for _ in range(total)]
        dv = rng.randint(1, 2)
        v = [[rng.uniform(-50, 50) for _ in range(dv)] for _ in range(total)]
        yield dict(past=past, new=new, pad_flags=pad_flags, causal=rng.random() < 0.7,
                   temperature=rng.uniform(0.25, 4), q=q, k=k, v=v,
                   policy=rng.choice(EMPTY_ROW_POLICIES[1:]))


def naive_row(q_row, k, allowed, temperature):
    """softmax by the textbook formula: exp(s/T) / sum over allowed exp(s/T)."""
    d = len(k[0])
    s = [sum(a * b for a, b in zip(q_row, kj)) / math.sqrt(d) / temperature for kj in k]
    m = max(x for x, ok in zip(s, allowed) if ok)
    e = [math.exp(x - m) if ok else 0.0 for x, ok in zip(s, allowed)]
    return [x / sum(e) for x in e]


CONFIGS = list(configurations())


def _run(c, v=None, k=None):
    qpos, kpos = cache_positions(c["past"], c["new"])
    table = build_table(qpos, kpos, c["pad_flags"], c["causal"])
    return table, attend(c["q"], k or c["k"], v or c["v"], table, c["temperature"], c["policy"])


def test_rows_sum_to_one_and_match_the_naive_formula():
    checked = 0
    for c in CONFIGS:
        table, r = _run(c)
        for i, w in enumerate(r.weights):
            allowed = table.allowed[i]
            if not any(allowed):
                continue
            assert abs(math.fsum(w) - 1) <= 1e-12
            assert w == pytest.approx(naive_row(c["q"][i], c["k"], allowed, c["temperature"]), abs=1e-12)
            checked += 1
    assert checked > 1000


def test_blocked_weights_are_exactly_zero():
    for c in CONFIGS:
        table, r = _run(c)
        for i, w in enumerate(r.weights):
            if table.row_has_visible_key(i):
                assert all(w[j] == 0.0 for j, ok in enumerate(table.allowed[i]) if not ok)


def test_blocked_keys_do_not_influence_the_output():
    rng = random.Random(5)
    for c in CONFIGS:
        table, r = _run(c)
        for i in range(len(r.weights)):
            if not table.row_has_visible_key(i):
                continue
            blocked = [j for j, ok in enumerate(table.allowed[i]) if not ok]
            if not blocked:
                continue
            v2 = [list(row) for row in c["v"]]
            k2 = [list(row) for row in c["k"]]
            for j in blocked:
                v2[j] = [9999.0] * len(v2[j])
                k2[j] = [rng.uniform(-100, 100) for _ in k2[j]]
            _, r2 = _run(c, v=v2, k=k2)
            assert r2.outputs[i] == r.outputs[i]


def test_causal_rule_never_reads_a_later_position():
    for c in CONFIGS:
        if not c["causal"]:
            continue
        table, r = _run(c)
        for i, p in enumerate(table.query_positions):
            if table.row_has_visible_key(i):
                assert all(r.weights[i][j] == 0.0 for j, kp in enumerate(table.key_positions) if kp > p)


def test_empty_rows_follow_the_policy():
    seen = {p: 0 for p in EMPTY_ROW_POLICIES[1:]}
    for c in CONFIGS:
        table, r = _run(c)
        for i in table.empty_rows:
            seen[c["policy"]] += 1
            w, out = r.weights[i], r.outputs[i]
            n = len(table.key_positions)
            if c["policy"] == "nan":
                assert all(math.isnan(x) for x in w) and all(math.isnan(x) for x in out)
            elif c["policy"] == "zeros":
                assert w == (0.0,) * n and out == (0.0,) * len(c["v"][0])
            else:  # uniform: the average of all values, forbidden ones included
                assert w == pytest.approx([1 / n] * n)
                mean = [math.fsum(row[d] for row in c["v"]) / n for d in range(len(c["v"][0]))]
                assert out == pytest.approx(mean, abs=1e-9)
    assert all(count > 0 for count in seen.values()), seen


def test_error_policy_refuses_or_reports_none():
    table = build_table([0, 1], [0, 1], [True, False], causal=True)
    q, k, v = [[1.0], [2.0]], [[1.0], [1.0]], [[5.0], [7.0]]
    with pytest.raises(MaskattnError) as info:
        attend(q, k, v, table)
    assert info.value.params["row"] == 0
    r = attend(q, k, v, table, strict=False)
    assert r.weights[0] is None and r.outputs[0] is None
    assert r.weights[1] == (0.0, 1.0) and r.outputs[1] == (7.0,)


def test_classify_reasons():
    assert classify(2, 1, False, True) is Cell.ALLOWED
    assert classify(1, 2, False, True) is Cell.FUTURE
    assert classify(2, 1, True, True) is Cell.PAD
    assert classify(1, 2, True, True) is Cell.FUTURE_PAD
    assert classify(1, 2, False, False) is Cell.ALLOWED
    assert classify(1, 2, True, False) is Cell.PAD


def test_additive_form():
    table = build_table([1], [0, 1, 2], [False, True, False])
    assert table.additive() == ((0.0, -math.inf, -math.inf),)


def test_cache_offset_tables_match_api_conventions():
    # past=3, new=2 (as SDPA draws them) -> bottom-right 11110 / 11111, top-left 10000 / 11000
    correct = build_table(*cache_positions(3, 2))
    wrong = row_number_table(correct)
    bits = lambda t: ["".join("1" if a else "0" for a in row) for row in t.allowed]
    assert bits(correct) == ["11110", "11111"]
    assert bits(wrong) == ["10000", "11000"]


@pytest.mark.parametrize(
    "q, k, v, key",
    [
        ([], [[1]], [[1]], "matrix_empty"),
        ([[1, 2], [3]], [[1, 2]], [[1]], "matrix_ragged"),
        ([[1, math.nan]], [[1, 2]], [[1]], "matrix_nonfinite"),
        ([[1, "a"]], [[1, 2]], [[1]], "matrix_not_number"),
        ([[1, 2]], [[1, 2, 3]], [[1]], "dim_qk"),
        ([[1, 2]], [[1, 2], [3, 4]], [[1]], "dim_kv"),
    ],
    ids=["empty", "ragged", "nan", "not-number", "dq-dk", "nk-nv"],
)
def test_matrix_validation_names_matrix_and_problem(q, k, v, key):
    table = build_table([0], list(range(max(1, len(k)))), None, causal=False)
    with pytest.raises(MaskattnError) as info:
        attend(q, k, v, table)
    assert info.value.key == key
