"""The flex lens run against real FlexAttention (torch 2.13, CPU): its
mask_mod source through `create_mask` and `flex_attention` must give the
table and the outputs the lens claims, on F12 step 4 (a query that is not
the last row) and on random configurations."""

from __future__ import annotations

import json
import random

import pytest

from maskattn_tui.cli import main
from maskattn_tui.explore.api_lens import lens
from maskattn_tui.explore.config import ExploreConfig

from test_mask_patterns import random_config

torch = pytest.importorskip("torch")
flex = pytest.importorskip("torch.nn.attention.flex_attention")
# eager flex_attention on CPU warns that it is unfused; the numbers are what matter here
pytestmark = pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")


def _mask_mod(source: str):
    namespace: dict = {}
    exec(source, namespace)  # the lens's own generated source
    return namespace["mask_mod"]


def _json_step(capsys, *args) -> dict:
    assert main(["json", *args]) == 0
    return json.loads(capsys.readouterr().out)["steps"][0]


def _flex_out(step: dict, entry: dict) -> list[float]:
    q, k, v = (torch.tensor(step[n], dtype=torch.float64)[None, None] for n in ("q", "k", "v"))
    rows, cols = len(step["q"]), len(step["k"])
    block = flex.create_block_mask(_mask_mod(entry["value"]), 1, 1, rows, cols, device="cpu")
    # the tool's scores are q.k * scale, before the temperature
    out = flex.flex_attention(q, k, v, block_mask=block, scale=step["scale"] / step["temperature"])
    return out[0, 0, :, 0].tolist()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_step_4_mask_mod_places_the_query_at_position_1(capsys, lang):
    step = _json_step(capsys, "--step", "4", "--lens", "flex", "--lang", lang)
    entry = step["api_lens"][0]
    dense = flex.create_mask(_mask_mod(entry["value"]), 1, 1, 1, 3, device="cpu")[0, 0].tolist()
    assert dense == [[True, True, False]] == step["allowed"]
    assert entry["table"] == dense and entry["matches"] is True
    # F12: the masked output 17.3106 (the unmasked 25.7521 reads the future key 2)
    assert _flex_out(step, entry) == pytest.approx([o[0] for o in step["outputs"]])
    assert _flex_out(step, entry) == pytest.approx([17.3106], abs=1e-4)


@pytest.mark.parametrize("step", [1, 2, 3, 5])
def test_the_other_f12_steps_through_flex_attention(capsys, step):
    data = _json_step(capsys, "--step", str(step), "--lens", "flex")
    entry = data["api_lens"][0]
    rows, cols = len(data["q"]), len(data["k"])
    dense = flex.create_mask(_mask_mod(entry["value"]), 1, 1, rows, cols, device="cpu")[0, 0].tolist()
    assert dense == entry["table"] == data["allowed"] and entry["matches"]


def test_random_configurations_through_create_mask():
    rng = random.Random(2113)
    for _ in range(40):
        config = random_config(rng)
        table = config.table()
        for lang in ("en", "zh"):
            entry = lens(table, "flex", lang)
            dense = flex.create_mask(_mask_mod(entry["value"]), 1, 1, config.new, config.length, device="cpu")
            assert dense[0, 0].tolist() == entry["table"] == [list(r) for r in table.allowed], config
            assert entry["matches"] is True


def test_random_configurations_through_flex_attention_against_sdpa():
    # an independent second path: SDPA with the dense bool table
    rng = random.Random(77)
    checked = 0
    for _ in range(10):
        config = random_config(rng)
        table = config.table()
        if table.empty_rows:
            continue  # SDPA and flex differ on empty rows by design (NaN / 0)
        rows, cols = config.new, config.length
        q, k, v = (torch.randn(1, 1, n, 4, dtype=torch.float64) for n in (rows, cols, cols))
        block = flex.create_block_mask(_mask_mod(lens(table, "flex")["value"]), 1, 1, rows, cols, device="cpu")
        got = flex.flex_attention(q, k, v, block_mask=block)
        want = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=torch.tensor([list(r) for r in table.allowed]))
        torch.testing.assert_close(got, want)
        checked += 1
    assert checked >= 5


def test_a_query_placed_off_the_last_rows_by_hand():
    # the engine's own table for queries at 1 and 2 over keys 0-4, not bottom-right
    from maskattn_tui.engine.rules import Pattern
    from maskattn_tui.engine.visibility import build_table

    table = build_table((1, 2), range(5), [False, False, False, True, False], pattern=Pattern(window=2))
    entry = lens(table, "flex")
    dense = flex.create_mask(_mask_mod(entry["value"]), 1, 1, 2, 5, device="cpu")[0, 0].tolist()
    assert dense == [[True, True, False, False, False], [False, True, True, False, False]] == entry["table"]
    assert entry["matches"]


def test_the_comment_lines_follow_the_language():
    table = ExploreConfig(past=2, new=3, pad=1, window=2, documents=(2, 3)).table()
    zh = lens(table, "flex", "zh")["value"]
    comments = [line.split("#", 1)[1] for line in zh.splitlines() if "#" in line and "block_mask" not in line]
    assert len(comments) >= 4
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in c) for c in comments if "False = PAD" not in c), comments


def test_random_query_placements_through_create_mask():
    # queries anywhere (not only the last rows), with the pattern rules, against create_mask
    from maskattn_tui.engine.rules import Pattern
    from maskattn_tui.engine.visibility import build_table

    rng = random.Random(9)
    for _ in range(30):
        n = rng.randint(2, 8)
        queries = sorted(rng.sample(range(n), rng.randint(1, n)))
        pad = [rng.random() < 0.2 for _ in range(n)]
        kind = rng.choice(["window", "chunk", "prefix", "documents", "none"])
        pattern = Pattern(
            window=rng.randint(1, 4) if kind == "window" else None,
            chunk=rng.randint(1, 3) if kind == "chunk" else None,
            prefix=rng.randint(0, n) if kind == "prefix" else None,
            documents=(rng.randint(1, n - 1), ) if kind == "documents" else None,
        )
        if pattern.documents is not None:
            pattern = Pattern(documents=(pattern.documents[0], n - pattern.documents[0]))
        table = build_table(queries, range(n), pad, pattern=pattern)
        entry = lens(table, "flex")
        dense = flex.create_mask(_mask_mod(entry["value"]), 1, 1, len(queries), n, device="cpu")[0, 0].tolist()
        assert dense == entry["table"] == [list(r) for r in table.allowed], (queries, pattern)
        assert entry["matches"]
