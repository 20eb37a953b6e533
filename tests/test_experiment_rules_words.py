"""Issue 35 items 1-2: the offset bug calls "future" only a key after the
query's position and names the rule that hides the others; the chunk
history's wrong table is the one transformers' create_chunked_causal_mask
builds when the cached keys get 0 in the attention mask (they count as left
padding, so the chunks restart at the first real token)."""

from __future__ import annotations

import random

import pytest

from maskattn_tui.explore import ExploreConfig, offset_bug
from maskattn_tui.explore.api_lens import lens
from maskattn_tui.explore.experiment_runs import experiment_data, run_experiment
from maskattn_tui.i18n import t

from test_experiment_marks import text_of
from test_lens_hf_masking_utils import hf_table
from test_mask_patterns import random_config

import torch  # noqa: E402  (CI installs torch and transformers: no skip)
from transformers import DynamicCache, Llama4TextConfig  # noqa: E402
from transformers.masking_utils import create_chunked_causal_mask  # noqa: E402


def _lines(out: str) -> str:
    return " ".join(out.split())


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("argv, rule, cells", [
    (dict(past=4, new=2, window=3), "window", "q4: k0{sep}q5: k0–k1"),
    (dict(past=6, new=3, chunk=4), "chunk", "q6: k0{sep}q7: k0–k1{sep}q8: k0–k2"),
    (dict(past=3, new=3, documents=(2, 4)), "document", "q3: k0{sep}q4: k0–k1"),
])
def test_the_offset_bug_names_the_rule_not_the_future(lang, argv, rule, cells):
    res = offset_bug(ExploreConfig(**argv))
    # every exposed key lies before its query's absolute position: none is future
    assert res.exposed and all(k < res.correct.query_positions[r] for r, k in res.exposed)
    out = _lines(text_of("offset-bug", res, lang))
    future = t("render.x.offset.exposed", lang, cells="").strip()
    assert future not in out
    sep = t("render.x.row_sep", lang)
    want = t("render.x.offset.exposed_rule", lang, rules=t(f"render.reason.{rule}", lang),
             cells=cells.format(sep=sep))
    assert _lines(want) in out
    assert experiment_data("offset-bug", res, lang)["exposed_by"] == [rule] * len(res.exposed)


def test_future_is_said_exactly_for_keys_after_the_query():
    rng = random.Random(351)
    seen = set()
    for _ in range(200):
        config = random_config(rng)
        res = offset_bug(config)
        out = text_of("offset-bug", res)
        for (r, k), because in zip(res.exposed, res.exposed_by):
            p = res.correct.query_positions[r]
            assert ("future" in because.split("+")) == (k > p), (config, r, k, because)
            seen.add(because)
        future = [(r, k) for (r, k), b in zip(res.exposed, res.exposed_by) if "future" in b.split("+")]
        assert ("Future exposed by the wrong table" in out) == bool(future), config
        earlier = len(res.exposed) - len(future)
        assert ("exposed by the wrong table (not the future" in _lines(out)) == (earlier > 0), config
    assert {"window", "chunk", "document"} <= seen


def _llama4_mask(implementation: str, past: int, attention_mask: list[int], chunk: int) -> str:
    """create_chunked_causal_mask for `new` queries after `past` cached keys."""
    config = Llama4TextConfig(hidden_size=16, intermediate_size=32, intermediate_size_mlp=32, num_hidden_layers=1,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=8, vocab_size=32,
                              attention_chunk_size=chunk)
    config._attn_implementation = implementation
    cache = DynamicCache(config=config)
    if past:
        cache.update(torch.zeros(1, 1, past, 8), torch.zeros(1, 1, past, 8), 0)
    new = len(attention_mask) - past
    mask = create_chunked_causal_mask(config=config, inputs_embeds=torch.zeros(1, new, 16),
                                      attention_mask=torch.tensor([attention_mask]), cache=cache,
                                      position_ids=torch.arange(past, past + new)[None],
                                      allow_is_causal_skip=False)[0, 0]
    if mask.dtype != torch.bool:
        mask = mask == 0
    return " ".join("".join("1" if x else "." for x in row) for row in mask.tolist())


def _rows(table) -> str:
    return " ".join("".join("1" if x else "." for x in row) for row in table.allowed)


@pytest.mark.parametrize("implementation", ["eager", "sdpa"])
def test_the_chunked_preset_s_wrong_table_is_what_transformers_builds(implementation):
    res = run_experiment("chunk-history", ExploreConfig(past=2, new=6, chunk=4))
    wrong = _llama4_mask(implementation, 2, [0, 0, 1, 1, 1, 1, 1, 1], 4)
    assert wrong == "..1..... ..11.... ..111... ..1111.. ......1. ......11"  # the run
    assert _rows(res.wrong) == wrong
    assert _rows(res.correct) == _llama4_mask(implementation, 2, [1] * 8, 4)
    assert (res.chunk_origin, res.wrong_chunk_origin) == (0, 2)
    # it also exposes keys of another chunk and hides keys of the query's own
    assert res.exposed == ((2, 2), (2, 3), (3, 2), (3, 3))
    assert [k for _, k in res.hidden if k >= 2] == [4, 5, 4, 5]


def test_the_chunk_history_s_tables_against_the_mask_builders():
    """Random configurations: the lens's Hugging Face arguments, with the
    cached keys given 0 in the attention mask, fed to transformers."""
    rng = random.Random(352)
    moved = checked = 0
    for _ in range(200):
        config = random_config(rng)
        if config.tree is not None or config.past == 0:
            continue
        entry = lens(config.table(), "hf")
        if not entry["matches"]:
            continue  # what HF cannot express (test_lens_patterns.py)
        res = run_experiment("chunk-history", config)
        assert hf_table(config, entry) == [list(r) for r in res.correct.allowed], config
        alone = dict(entry, value=[[0 if k < config.past else x for k, x in enumerate(entry["value"][0])]])
        assert hf_table(config, alone) == [list(r) for r in res.wrong.allowed], config
        checked += 1
        moved += res.chunk_origin != res.wrong_chunk_origin
    assert checked > 60 and moved > 5


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_chunk_history_says_what_moved(lang):
    res = run_experiment("chunk-history", ExploreConfig(past=2, new=6, chunk=4))
    out = _lines(text_of("chunk-history", res, lang))
    sep = t("render.x.row_sep", lang)
    for key, cells in (("render.x.history.exposed", f"q4: k2–k3{sep}q5: k2–k3"),
                       ("render.x.history.hidden", f"q2: k0–k1{sep}q3: k0–k1"),
                       ("render.x.history.hidden_own", f"q6: k4–k5{sep}q7: k4–k5")):
        assert _lines(t(key, lang, cells=cells)) in out
    assert _lines(t("render.x.history.moved", lang, zeros=2, wrong=2, right=0)) in out
    # outputs: the wrong table's rows, weighted as the library's mask weighs them
    assert res.output_change[4] > 0 and res.output_change[2] > 0


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_app_s_experiment_2_names_the_rule(lang):
    """The app's experiment 2 (the lab pane) reads as print does."""
    from maskattn_tui.cli.export import settle
    from maskattn_tui.tui import make_app

    app = make_app(lang=lang, explore=ExploreConfig(past=4, new=2, window=3), experiments=("offset-bug",))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        figure = app.query_one("#lab-pane").figure
        # without any spaces: a wrapped Chinese line joins without one
        text = "".join("".join("".join(s.text for s in figure.full(y)) for y in range(figure.height)).split())
    sep = t("render.x.row_sep", lang)
    said = t("render.x.offset.exposed_rule", lang, rules=t("render.reason.window", lang), cells=f"q4: k0{sep}q5: k0–k1")
    assert "".join(said.split()) in text
    assert "".join(t("render.x.offset.exposed", lang, cells="").split()) not in text
