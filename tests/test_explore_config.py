"""ExploreConfig: layout, generated inputs, validation, spec and strings."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from importlib import resources

import pytest

from maskattn_tui.engine.attention import attend
from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore import ExploreConfig, evaluate, explore_view, generate_inputs, to_spec
from maskattn_tui.explore.config import apply_v
from maskattn_tui.i18n import catalog
from maskattn_tui.lesson.stepview import build_view
from helpers import with_score, with_v


def test_defaults_are_the_cache_example():
    c = ExploreConfig()
    assert (c.past, c.new, c.pad, c.pad_side, c.causal) == (3, 2, 0, "left", True)
    assert (c.temperature, c.empty_row_policy, c.seed) == (1.0, "error", 0)
    assert c.query_positions == (3, 4)
    assert c.key_positions == (0, 1, 2, 3, 4)
    assert c.key_is_pad == (False,) * 5


@pytest.mark.parametrize(
    "past, new, pad, side, key_is_pad, query_is_pad",
    [
        (2, 3, 2, "left", (1, 1, 0, 0, 0), (0, 0, 0)),
        (0, 3, 2, "left", (1, 1, 0), (1, 1, 0)),
        (1, 3, 2, "right", (0, 0, 1, 1), (0, 1, 1)),
        (3, 1, 1, "right", (0, 0, 0, 1), (1,)),
        (2, 2, 4, "left", (1, 1, 1, 1), (1, 1)),
        (4, 2, 0, "right", (0,) * 6, (0, 0)),
    ],
)
def test_pad_is_at_the_ends_of_the_whole_sequence(past, new, pad, side, key_is_pad, query_is_pad):
    c = ExploreConfig(past=past, new=new, pad=pad, pad_side=side)
    assert c.key_is_pad == tuple(bool(x) for x in key_is_pad)
    assert c.query_is_pad == tuple(bool(x) for x in query_is_pad)


def test_left_padding_with_causal_gives_rows_without_visible_key():
    # positions 0,1 are PAD and are also queries: each sees only keys <= itself, all PAD
    c = ExploreConfig(past=0, new=3, pad=2, pad_side="left")
    rows = ["".join("1" if ok else "0" for ok in row) for row in c.table().allowed]
    assert rows == ["000", "000", "001"]
    assert c.table().empty_rows == (0, 1)


def test_generated_inputs_are_small_deterministic_and_tied_to_positions():
    q, k, v = generate_inputs(3, 2, seed=7)
    assert (len(q), len(k), len(v)) == (2, 5, 5)
    assert all(len(r) == 2 for r in q + k) and all(len(r) == 1 for r in v)
    assert all(x in (-2, -1, 0, 1, 2) for r in q + k for x in r)
    assert all(x in range(10, 100, 10) for r in v for x in r)
    assert generate_inputs(3, 2, seed=7) == (q, k, v)
    # the key at position j and the query at position p do not depend on past/new
    q2, k2, v2 = generate_inputs(1, 6, seed=7)
    assert k2[:5] == k and v2[:5] == v
    assert q2[2:4] == q  # positions 3, 4
    assert any(generate_inputs(3, 2, s) != (q, k, v) for s in range(1, 5))


def test_explicit_inputs_and_v_override():
    q = [[1, 0], [0, 1]]
    k = [[1, 0], [0, 1], [1, 1]]
    v = [[10], [20], [30]]
    c = with_v(ExploreConfig(past=1, new=2, q=q, k=k, v=v), 2, 9999)
    eq, ek, ev = c.inputs()
    assert eq == ((1.0, 0.0), (0.0, 1.0))
    assert ev == ((10.0,), (20.0,), (9999.0,))
    assert c.v == ((10.0,), (20.0,), (30.0,))  # the explicit V itself is untouched
    assert apply_v(((1.0, 2.0),), [(0, 5)]) == ((5.0, 5.0),)


def test_overrides_are_sorted_unique_last_wins():
    c = with_v(with_v(with_v(ExploreConfig(), 4, 1), 1, 2), 4, 3)
    assert c.v_override == ((1, 2.0), (4, 3.0))
    c = with_score(with_score(with_score(ExploreConfig(), 1, 0, 5), 0, 4, 1), 1, 0, 6)
    assert c.score_override == ((0, 4, 1.0), (1, 0, 6.0))
    assert c.replace(v_override=(), score_override=()).score_override == ()


def test_replace_validates_and_keeps_the_old_value():
    c = ExploreConfig()
    with pytest.raises(MaskattnError):
        c.replace(past=99)
    assert c.past == 3


BAD = [
    (dict(past=33), "past must be from 0 to 32 (got 33)"),
    (dict(past=-1), "past must be from 0 to 32"),
    (dict(past=2.5), "past must be a whole number"),
    (dict(past=True), "past must be a whole number"),
    (dict(new=0), "new must be from 1 to 32 (got 0)"),
    (dict(new=33), "new must be from 1 to 32"),
    (dict(past=3, new=2, pad=6), "pad must be from 0 to past + new = 5 (got 6)"),
    (dict(pad=-1), "pad must be from 0 to past + new"),
    (dict(pad_side="middle"), "pad_side must be left or right"),
    (dict(causal="yes"), "causal must be true or false"),
    (dict(temperature=0.05), "temperature must be from 0.1 to 10"),
    (dict(temperature=11), "temperature must be from 0.1 to 10 (got 11)"),
    (dict(temperature=math.nan), "temperature must be a finite number"),
    (dict(temperature=math.inf), "temperature must be a finite number"),
    (dict(temperature="1"), "temperature must be a number"),
    (dict(empty_row_policy="skip"), "unknown empty-row policy 'skip'"),
    (dict(seed=-1), "seed must be from 0 to 4294967295"),
    (dict(seed=2**32), "seed must be from 0 to 4294967295"),
    (dict(new=2, q=[[1, 0]]), "q must have 2 rows (one per new query), got 1"),
    (dict(past=1, new=1, k=[[1, 0]]), "k must have 2 rows (one per position, past + new), got 1"),
    (dict(past=1, new=1, v=[[1], [2], [3]]), "v must have 2 rows"),
    (dict(past=0, new=2, q=[[1, 0], [0]]), "q is not rectangular"),
    (dict(past=0, new=1, v=[[math.nan]]), "v[0][0] must be finite"),
    (dict(past=0, new=1, q=[[1, 2, 3]]), "q rows have 3 values but k rows have 2"),
    (dict(past=0, new=1, q=[]), "q must be a non-empty matrix"),
    (dict(v_override=[(5, 1.0)]), "key position must be a whole number from 0 to 4 (got 5)"),
    (dict(v_override=[(0, math.inf)]), "the value must be a finite number"),
    (dict(v_override=[(0,)]), "must be a pair [key, value]"),
    (dict(score_override=[(2, 0, 1.0)]), "query row must be a whole number from 0 to 1 (got 2)"),
    (dict(score_override=[(0, 0)]), "must be a triple [row, key, score]"),
]


@pytest.mark.parametrize("kwargs, fragment", BAD, ids=[f"{k}" for k, _ in BAD])
def test_bad_values_raise_with_a_clear_message(kwargs, fragment):
    with pytest.raises(MaskattnError) as info:
        ExploreConfig(**kwargs)
    assert fragment in str(info.value)
    assert info.value.params.get("field") or info.value.params.get("name")
    zh = info.value.message("zh")
    assert zh and zh != str(info.value)


def test_to_spec_is_one_explore_step_that_build_view_accepts():
    c = with_v(ExploreConfig(past=2, new=3, pad=1, pad_side="right", temperature=0.5, seed=4), 4, 9999)
    spec = to_spec(c)
    assert (spec.step, spec.kind, spec.past) == (1, "explore", 2)
    assert spec.query_positions == (2, 3, 4) and spec.key_positions == (0, 1, 2, 3, 4)
    assert spec.key_is_pad == (False, False, False, False, True)
    assert spec.v[4] == (9999.0,)
    for name in ("title", "condition", "caption"):
        texts = getattr(spec, name)
        assert set(texts) == {"en", "zh"} and all(texts.values())
    assert "past = 2, new = 3" in spec.title["en"]
    assert "1 on the right (position 4)" in spec.condition["en"]
    assert "temperature = 0.5" in spec.condition["en"]
    view = build_view(spec, 1)
    assert view.result.outputs == explore_view(c).result.outputs


def test_focus_row_is_the_first_row_with_a_visible_key():
    assert to_spec(ExploreConfig(past=0, new=3, pad=2, empty_row_policy="zeros")).focus_rows == (2,)
    assert to_spec(ExploreConfig()).focus_rows == (0,)


def test_caption_names_empty_rows_and_pad_queries_in_both_languages():
    spec = to_spec(ExploreConfig(past=0, new=3, pad=2, empty_row_policy="uniform"))
    assert "Rows 0–1 have no visible key" in spec.caption["en"]
    assert "uniform" in spec.caption["en"]
    assert "Query rows 0–1 are PAD" in spec.caption["en"]
    assert "第 0–1 行都没有可见 Key" in spec.caption["zh"]


def test_evaluate_equals_attend_without_score_overrides():
    for c in (
        ExploreConfig(),
        ExploreConfig(past=0, new=4, pad=2, empty_row_policy="nan"),
        ExploreConfig(past=5, new=3, pad=3, pad_side="right", causal=False, temperature=2.5, seed=9),
    ):
        q, k, v = c.inputs()
        expected = attend(q, k, v, c.table(), c.temperature, c.empty_row_policy, strict=False)
        got = evaluate(c)
        assert got.scores == expected.scores
        assert repr(got.weights) == repr(expected.weights)  # repr: NaN == NaN
        assert repr(got.outputs) == repr(expected.outputs)
        assert got.empty_rows == expected.empty_rows


def test_score_override_reaches_the_view():
    c = ExploreConfig(past=0, new=2, q=[[1, 0], [0, 1]], k=[[1, 0], [0, 1]], v=[[10], [20]])
    c = with_score(c, 1, 0, math.log(3))  # row 1: scores [ln 3, 1/sqrt2]
    view = explore_view(c)
    assert view.result.scores[1][0] == math.log(3)
    s1 = 1 / math.sqrt(2)
    w = [3 / (3 + math.exp(s1)), math.exp(s1) / (3 + math.exp(s1))]
    assert view.result.weights[1] == pytest.approx(w, abs=1e-12)
    assert "Score cells set by hand: 1." in view.spec.caption["en"]


# --- strings and import hygiene ---------------------------------------------------


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)[^}]*\}", text))


def test_every_explore_string_exists_in_both_languages_with_the_same_placeholders():
    raw = json.loads(
        (resources.files("maskattn_tui") / "data" / "strings" / "explore.json").read_text("utf-8")
    )
    assert len(raw) > 50
    for key, texts in raw.items():
        assert key.startswith(("explore.", "error.explore_")), key
        assert set(texts) == {"en", "zh"}, key
        assert texts["en"].strip() and texts["zh"].strip(), key
        assert _placeholders(texts["en"]) == _placeholders(texts["zh"]), key
    assert set(raw) <= set(catalog())


def test_every_string_key_the_code_uses_exists():
    import maskattn_tui.explore as pkg

    keys = catalog()
    used = set()
    for entry in resources.files(pkg).iterdir():
        if entry.name.endswith(".py"):
            text = entry.read_text("utf-8")
            used |= set(re.findall(r't\(\s*"(explore\.[\w.\-]+)"', text))
            used |= {"error." + k for k in re.findall(r'(?:MaskattnError|ContextError)\(\s*"(explore_\w+)"', text)}
    assert len(used) > 30
    for key in used:
        assert key in keys, key


def test_the_explore_core_imports_neither_textual_nor_rich():
    code = (
        "import argparse, sys\n"
        "import maskattn_tui.explore as e\n"
        "from maskattn_tui.cli.explore_options import add_explore_arguments\n"
        "p = argparse.ArgumentParser(); add_explore_arguments(p); p.format_help()\n"
        "c = e.ExploreConfig(pad=1)\n"
        "e.explore_view(c); e.leak_probe(c); e.lenses(c.table()); e.dumps_scenario(c)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_f12_cache_step_reproduced_as_an_explore_configuration():
    from maskattn_tui.lesson.f12 import load_f12

    step5 = load_f12().steps[4]
    c = ExploreConfig(past=3, new=2, q=step5.q, k=step5.k, v=step5.v)
    assert c.query_positions == step5.query_positions
    assert c.key_positions == step5.key_positions
    mine, theirs = explore_view(c), build_view(step5, 5)
    assert mine.table.cells == theirs.table.cells
    assert mine.result.weights == theirs.result.weights
    assert mine.result.outputs == theirs.result.outputs


def test_caption_follows_the_causal_switch():
    on = to_spec(ExploreConfig(past=2, new=2)).caption["en"]
    off = to_spec(ExploreConfig(past=2, new=2, causal=False)).caption["en"]
    assert "under the causal rule each may read all the history" in on
    assert "under the causal rule" not in off and "The causal rule is off" in off
