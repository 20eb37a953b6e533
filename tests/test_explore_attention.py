"""The explorer's numbers come from the engine's one attention loop: with a
score set directly, another table (an experiment's) and another V (a leak
probe), its weights equal a softmax written here from the formula, and
without those it equals `attend` to the last bit."""

from __future__ import annotations

import math

import pytest

from maskattn_tui.engine.attention import attend
from maskattn_tui.explore import ExploreConfig, evaluate


def by_hand(q, k, allowed, temperature, overrides=()):
    """exp((q.k/sqrt(d) [or the override]) / T) normalised over allowed keys."""
    d = len(k[0])
    out = []
    for r, (qr, ok) in enumerate(zip(q, allowed)):
        s = [sum(a * b for a, b in zip(qr, kj)) / math.sqrt(d) for kj in k]
        for row, key, value in overrides:
            if row == r:
                s[key] = value
        if not any(ok):
            out.append(None)
            continue
        top = max(x for x, o in zip(s, ok) if o)
        e = [math.exp((x - top) / temperature) if o else 0.0 for x, o in zip(s, ok)]
        out.append([x / math.fsum(e) for x in e])
    return out


def test_score_override_other_table_and_v_match_the_formula():
    c = ExploreConfig(past=3, new=3, pad=1, temperature=0.7, seed=5,
                      score_override=((1, 2, 4.5), (2, 0, -3.0)))
    q, k, v = c.inputs()
    own = [list(r) for r in c.table().allowed]
    res = evaluate(c)
    for got, want in zip(res.weights, by_hand(q, k, own, 0.7, c.score_override)):
        assert got == pytest.approx(want, abs=1e-12)
    # row 1's override at key 2 changes its weights: the override reached the loop
    plain = evaluate(c.replace(v_override=(), score_override=()))
    assert plain.weights[1] != pytest.approx(res.weights[1], abs=1e-6)

    # an experiment's table: every key visible to every row (PAD included)
    everything = [[True] * c.length for _ in range(c.new)]
    other_v = [[float(10 * j), -1.0] for j in range(c.length)]
    exp = evaluate(c, allowed=everything, v=other_v)
    want = by_hand(q, k, everything, 0.7, c.score_override)
    for r in range(c.new):
        assert exp.weights[r] == pytest.approx(want[r], abs=1e-12)
        mixed = [math.fsum(w * row[d] for w, row in zip(want[r], other_v)) for d in range(2)]
        assert exp.outputs[r] == pytest.approx(mixed, abs=1e-9)
    assert exp.empty_rows == ()


def test_an_empty_row_under_error_is_none_and_listed():
    c = ExploreConfig(past=0, new=3, pad=2)  # rows 0 and 1 see only PAD
    res = evaluate(c)
    assert res.weights[:2] == (None, None) and res.outputs[:2] == (None, None)
    assert res.empty_rows == (0, 1) == c.table().empty_rows
    q, k, _ = c.inputs()
    assert res.weights[2] == pytest.approx(by_hand(q, k, c.table().allowed, 1.0)[2], abs=1e-12)


@pytest.mark.parametrize("policy", ["error", "nan", "zeros", "uniform"])
def test_without_overrides_the_explorer_is_the_engine(policy):
    c = ExploreConfig(past=2, new=4, pad=3, pad_side="right", causal=False,
                      temperature=1.7, empty_row_policy=policy, seed=11)
    q, k, v = c.inputs()
    engine = attend(q, k, v, c.table(), c.temperature, policy, strict=False)
    mine = evaluate(c)
    assert repr(mine.weights) == repr(engine.weights)
    assert repr(mine.outputs) == repr(engine.outputs)
    assert mine.empty_rows == engine.empty_rows


def test_one_attention_loop():
    """Only the engine computes a softmax; the explorer, mask mode's bars and
    the long rows call it (the lesson's exp terms and the float16 lens show
    arithmetic of their own, not a softmax over a mask)."""
    from pathlib import Path

    import maskattn_tui

    root = Path(maskattn_tui.__file__).parent
    sources = {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in root.rglob("*.py")}
    defining = sorted(name for name, text in sources.items() if "def masked_softmax" in text)
    assert defining == ["engine/softmax.py"]  # (engine/softmax_np.py holds its numpy row)
    numpy_exp = sorted(name for name, text in sources.items() if "np.exp(" in text)
    assert numpy_exp == ["engine/softmax_np.py"]
    callers = {name for name, text in sources.items() if "masked_softmax(" in text}
    assert {"engine/attention.py", "maskmode/row_weights.py"} <= callers
