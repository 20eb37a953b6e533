"""The hf lens's empty-row claim for eager attention in float16, run
against transformers 5.24's own eager_attention_forward and eager_mask: a
row whose every key is masked is uniform only for small scores (the mask
-65504 is spaced 32 apart in float16), so the lens computes the claim for
the configuration's own scores."""

from __future__ import annotations

import json
import random

import pytest

from maskattn_tui.cli import main

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from transformers.masking_utils import eager_mask  # noqa: E402
from transformers.models.llama.modeling_llama import eager_attention_forward  # noqa: E402


class _Module(torch.nn.Module):
    num_key_value_groups = 1


def hf_fully_masked(scores: list[float], dtype=torch.float16) -> list[float]:
    """HF eager weights of one query whose keys are all PAD: q.k * scaling
    = `scores` (head dim 1, q = 1, k = the scores, scaling 1)."""
    n = len(scores)
    mask = eager_mask(batch_size=1, q_length=1, kv_length=n, attention_mask=torch.zeros(1, n, dtype=torch.bool),
                      dtype=dtype)
    query = torch.ones(1, 1, 1, 1, dtype=dtype)
    key = torch.tensor(scores, dtype=dtype).reshape(1, 1, n, 1)
    value = torch.zeros(1, 1, n, 1, dtype=dtype)
    _, weights = eager_attention_forward(_Module().eval(), query, key, value, mask, scaling=1.0)
    return weights[0, 0, 0].float().tolist()


def policy_of(weights: list[float]) -> str:
    if any(w != w for w in weights):
        return "nan"
    return "uniform" if max(weights) - min(weights) < 1e-3 else "scores"


def run(capsys, *args) -> dict:
    assert main(["json", *args, "--lens", "hf"]) == 0
    return json.loads(capsys.readouterr().out)["steps"][0]


def _paths(step: dict) -> dict:
    return {e["path"]: e for e in step["api_lens"][0]["empty_row"]}


def expected(step: dict) -> tuple[str, list[list[float]]]:
    """The lens's rule, from torch: over the empty rows (or every row when
    none is empty), the policy they share, else "scores"."""
    model = [[s / step["temperature"] for s in row] for row in step["scores"]]
    table = step["api_lens"][0]["table"]
    rows = [r for r, row in enumerate(table) if not any(row)] or range(len(table))
    got = [hf_fully_masked(model[r]) for r in rows]
    policies = {policy_of(w) for w in got}
    if policies == {"uniform"}:
        return "uniform", got
    return (policies.pop() if len(policies) == 1 else "scores"), got


@pytest.mark.parametrize("args", [
    ("--past", "1", "--new", "1", "--seed", "77", "--temperature", "0.1"),
    ("--past", "0", "--new", "8", "--seed", "11", "--temperature", "0.1"),
])
def test_the_issue_configurations_are_not_uniform_in_float16(capsys, args):
    step = run(capsys, *args)
    paths = _paths(step)
    f16 = paths["eager attention, float16"]
    policy, got = expected(step)
    assert policy == "scores" == f16["policy"]
    example = f16["example"]
    model = [[s / step["temperature"] for s in row] for row in step["scores"]]
    assert example["scores"] == pytest.approx(model[example["row"]])
    assert example["weights"] == pytest.approx(hf_fully_masked(model[example["row"]]), abs=1e-3)
    assert f"q{example['query']}" in f16["text"]
    # float32 and bfloat16 stay uniform for the same scores
    for dtype in (torch.float32, torch.bfloat16):
        assert all(policy_of(hf_fully_masked(row, dtype)) == "uniform" for row in model)
    assert paths["eager attention, float32 / bfloat16"]["policy"] == "uniform"


def test_the_issue_row_gives_one_and_zero(capsys):
    step = run(capsys, "--past", "1", "--new", "1", "--seed", "77", "--temperature", "0.1")
    example = _paths(step)["eager attention, float16"]["example"]
    assert example["scores"] == pytest.approx([0.0, -35.355], abs=1e-3)
    assert example["weights"] == [1.0, 0.0] == hf_fully_masked(example["scores"])


def test_random_configurations_agree_with_torch(capsys):
    rng = random.Random(16)
    seen = set()
    for _ in range(30):
        past, new = rng.randint(0, 3), rng.randint(1, 4)
        temperature = rng.choice(["1", "0.5", "0.2", "0.1"])
        args = ["--past", str(past), "--new", str(new), "--seed", str(rng.randint(0, 99)),
                "--temperature", temperature]
        if rng.random() < 0.3:
            args += ["--pad", "1"]
        step = run(capsys, *args)
        policy, _ = expected(step)
        assert _paths(step)["eager attention, float16"]["policy"] == policy, args
        seen.add(policy)
    assert {"uniform", "scores"} <= seen


def test_all_scores_far_below_zero_give_nan_in_float16():
    from maskattn_tui.explore.lens_float16 import masked_row

    assert policy_of(hf_fully_masked([-20.0, -40.0])) == "nan" == masked_row([-20.0, -40.0])[0]
    for scores in ([15.9, -15.9], [16.0, 0.0], [-16.0, 0.0], [20.0, 40.0], [3.0, 3.0, -3.0]):
        assert masked_row(scores)[0] == policy_of(hf_fully_masked(scores)), scores
