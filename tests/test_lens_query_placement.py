"""F12 step 4 puts its one query at position 1 over keys 0-2: HF and
FlashAttention can only place the L queries at the last L positions, so
their lenses must show the table they really compute (the query at 2) and
say why it differs; FlexAttention's mask_mod places it right
(test_lens_flex_torch.py)."""

from __future__ import annotations

import json

import pytest

from maskattn_tui.cli import main

from test_lens_flash_reference import reference


def _step4(capsys, names: str, lang: str = "en") -> dict:
    assert main(["json", "--step", "4", "--lens", names, "--lang", lang]) == 0
    step = json.loads(capsys.readouterr().out)["steps"][0]
    return {e["lens"]: e for e in step["api_lens"]}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_flash_computes_the_query_at_the_last_position_and_says_so(capsys, lang):
    entry = _step4(capsys, "flash", lang)["flash"]
    assert reference(entry, 1, 3, True) == entry["table"] == [[True, True, True]]
    assert entry["matches"] is False and entry["differs"] == [[0, 2]]
    assert len(entry["limits"]) == 1 and "1" in entry["limits"][0] and "2" in entry["limits"][0]


def test_hf_with_a_two_key_cache_computes_the_query_at_2(capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import DynamicCache, LlamaConfig
    from transformers.masking_utils import create_causal_mask

    config = LlamaConfig(vocab_size=8, hidden_size=8, intermediate_size=8, num_hidden_layers=1,
                         num_attention_heads=1, num_key_value_heads=1, head_dim=8)
    config._attn_implementation = "sdpa"
    cache = DynamicCache(config=config)
    cache.update(torch.zeros(1, 1, 2, 8), torch.zeros(1, 1, 2, 8), layer_idx=0)  # keys 0 and 1 cached
    mask = create_causal_mask(config=config, inputs_embeds=torch.zeros(1, 1, 8),
                              attention_mask=torch.ones(1, 3, dtype=torch.long), cache=cache,
                              allow_is_causal_skip=False)
    entry = _step4(capsys, "hf")["hf"]
    assert mask[0, 0].tolist() == entry["table"] == [[True, True, True]]
    assert entry["matches"] is False and entry["limits"]


def test_no_limit_when_the_queries_are_the_last_rows(capsys):
    assert main(["json", "--step", "5", "--lens", "hf,flash"]) == 0
    for entry in json.loads(capsys.readouterr().out)["steps"][0]["api_lens"]:
        assert entry["matches"] and entry["limits"] == [], entry["lens"]
