"""F12's printed numbers through the JSON path, and the schema held."""

import json
import math

import pytest

from maskattn_tui.cli import main
from maskattn_tui.i18n import LANGS
from maskattn_tui.lesson.f12 import load_f12

# The chapter's printed run (to 1e-12).
CAUSAL_WEIGHTS = [
    [1, 0, 0],
    [0.3302384506733431, 0.6697615493266569, 0],
    [0.2482550782577231, 0.2482550782577231, 0.5034898434845538],
]
OUTPUTS = [10.0, 16.697615493266568, 22.55234765226831]
SOFTMAX_012 = [0.09003057317038046, 0.24472847105479764, 0.6652409557748218]
WEIGHTED_10_20_30 = 25.75210382604441

REQUIRED = {
    "step", "steps", "lang", "title", "condition", "causal", "temperature", "scale",
    "query_positions", "key_positions", "key_is_pad", "q", "k", "v", "cells", "scores",
    "weights", "outputs", "empty_row_policy",
}


def strict_loads(text):
    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")
    return json.loads(text, parse_constant=refuse)


def run_json(capsys, *args):
    assert main(["json", *args]) == 0
    return strict_loads(capsys.readouterr().out)


@pytest.mark.parametrize("lang", LANGS)
def test_schema_and_required_fields(capsys, lang):
    doc = run_json(capsys, "--lang", lang)
    assert doc["schema"] == 1
    assert [s["step"] for s in doc["steps"]] == [1, 2, 3, 4, 5]
    for s in doc["steps"]:
        assert REQUIRED <= set(s), REQUIRED - set(s)
        assert s["lang"] == lang and s["steps"] == 5
        assert s["title"] and s["condition"]
        n_q, n_k = len(s["query_positions"]), len(s["key_positions"])
        assert len(s["cells"]) == n_q and all(len(r) == n_k for r in s["cells"])
        assert all(c in {"allowed", "future", "pad", "future+pad"} for r in s["cells"] for c in r)


def test_printed_numbers_steps_1_to_3(capsys):
    for step in (1, 2, 3):
        s = run_json(capsys, "--step", str(step))["steps"][0]
        assert s["step"] == step
        assert s["scale"] == pytest.approx(1 / math.sqrt(2), abs=1e-15)
        for got, want in zip(s["weights"], CAUSAL_WEIGHTS):
            assert got == pytest.approx(want, abs=1e-12)
        assert [o[0] for o in s["outputs"]] == pytest.approx(OUTPUTS, abs=1e-12)
        assert s["cells"] == [
            ["allowed", "future", "future"],
            ["allowed", "allowed", "future"],
            ["allowed", "allowed", "allowed"],
        ]
        assert s["focus_rows"] == [step - 1]


def test_step_4_comparison(capsys):
    s = run_json(capsys, "--step", "4")["steps"][0]
    c = s["compare"]
    assert c["scores"] == [0.0, 1.0, 2.0]
    assert c["additive_mask"] == [0.0, 0.0, "-inf"]
    assert c["weights_unmasked"] == pytest.approx(SOFTMAX_012, abs=1e-12)
    assert c["output_unmasked"][0] == pytest.approx(WEIGHTED_10_20_30, abs=1e-12)
    e = math.e  # second formula: the masked row is softmax([0, 1]) = [1, e] / (1 + e)
    assert c["denominator_unmasked"] == pytest.approx(1 + e + e * e, abs=1e-12)
    assert c["denominator_masked"] == pytest.approx(1 + e, abs=1e-12)
    assert c["weights_masked"] == pytest.approx([1 / (1 + e), e / (1 + e), 0.0], abs=1e-12)
    assert c["weights_masked"][2] == 0.0
    assert c["output_masked"][0] == pytest.approx((10 + 20 * e) / (1 + e), abs=1e-12)


def test_step_5_cache_offset(capsys):
    s = run_json(capsys, "--step", "5")["steps"][0]
    assert s["past"] == 3
    assert s["query_positions"] == [3, 4] and s["key_positions"] == [0, 1, 2, 3, 4]
    bits = lambda cells: ["".join("1" if c == "allowed" else "0" for c in row) for row in cells]
    assert bits(s["cells"]) == ["11110", "11111"]
    bug = s["offset_bug"]
    assert bug["query_positions"] == [0, 1]
    assert bits(bug["cells"]) == ["10000", "11000"]
    # Under the mistake, q3 reads only k0, so its output is V[0] exactly.
    assert bug["outputs"][0] == [s["v"][0][0]]
    # Second formula for the correct q4 row: softmax over all five keys.
    q4, keys = s["q"][1], s["k"]
    scores = [sum(a * b for a, b in zip(q4, kj)) / math.sqrt(2) for kj in keys]
    ex = [math.exp(x) for x in scores]
    assert s["weights"][1] == pytest.approx([x / sum(ex) for x in ex], abs=1e-12)


def test_every_text_exists_in_both_languages():
    f = load_f12()
    texts = [f.title, f.question, f.idea, f.inputs_note, f.reading_order]
    texts += [g["term"] for g in f.glossary] + [g["text"] for g in f.glossary]
    texts += [s.title for s in f.sections] + [s.body for s in f.sections]
    texts += [getattr(s, n) for s in f.steps for n in ("title", "condition", "caption")]
    for t in texts:
        assert t["en"].strip() and t["zh"].strip()
        assert t["en"] != t["zh"]
    assert [s.id for s in f.sections] == ["why", "build", "costs", "verify", "observe"]


def test_json_has_no_nan_or_infinity_for_any_policy():
    from maskattn_tui.cli.jsonout import document, dumps
    from maskattn_tui.lesson.f12 import StepSpec
    from maskattn_tui.lesson.stepview import build_view

    for policy in ("error", "nan", "zeros", "uniform"):
        spec = StepSpec(step=1, kind="rows", q=((1.0,), (1.0,)), k=((1.0,), (2.0,)), v=((3.0,), (5.0,)),
                        query_positions=(0, 1), key_positions=(0, 1), key_is_pad=(True, False),
                        empty_row_policy=policy, title={"en": "t", "zh": "t"},
                        condition={"en": "c", "zh": "c"}, caption={"en": "x", "zh": "x"})
        s = strict_loads(dumps(document([build_view(spec, 1)], "en")))["steps"][0]
        assert s["empty_rows"] == [0]
        if policy in ("error", "nan"):
            assert s["weights"][0] is None and s["outputs"][0] is None
        elif policy == "zeros":
            assert s["weights"][0] == [0.0, 0.0] and s["outputs"][0] == [0.0]
        else:
            assert s["weights"][0] == [0.5, 0.5] and s["outputs"][0] == [4.0]
        assert s["weights"][1] == [0.0, 1.0]


@pytest.mark.parametrize("lang", LANGS)
def test_numbers_quoted_in_captions_match_the_engine(capsys, lang):
    """Every 4-decimal number the captions quote is one the engine computes."""
    import re

    doc = run_json(capsys, "--lang", lang)
    quoted_total = 0
    for s in doc["steps"]:
        computed = set()

        def collect(x):
            if isinstance(x, list):
                for y in x:
                    collect(y)
            elif isinstance(x, dict):
                for y in x.values():
                    collect(y)
            elif isinstance(x, float):
                computed.add(f"{x:.4f}")
        collect([s["scores"], s["weights"], s["outputs"], s.get("compare", {})])
        for number in re.findall(r"\d+\.\d{4}", s["caption"]):
            quoted_total += 1
            assert number in computed, (s["step"], number)
    assert quoted_total >= 10
