"""The hf lens's table, for random configurations (window, chunk, prefix,
documents, PAD, with and without a cache), against transformers 5.24's own
mask builders fed the lens's arguments: create_causal_mask,
create_sliding_window_causal_mask, create_chunked_causal_mask."""

from __future__ import annotations

import random

import pytest

from maskattn_tui.explore.api_lens import lens

from test_mask_patterns import random_config

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from transformers import DynamicCache, LlamaConfig  # noqa: E402
from transformers.masking_utils import (  # noqa: E402
    create_causal_mask,
    create_chunked_causal_mask,
    create_sliding_window_causal_mask,
)


def hf_table(config, entry: dict) -> list[list[bool]]:
    """The sdpa bool mask HF builds from the lens's attention_mask and
    arguments, with `past` keys already in the cache."""
    text = LlamaConfig(vocab_size=8, hidden_size=8, intermediate_size=8, num_hidden_layers=1,
                       num_attention_heads=1, num_key_value_heads=1, head_dim=8)
    text._attn_implementation = "sdpa"
    a = entry["arguments"]
    cache = None
    if config.past:
        cache = DynamicCache()
        cache.update(torch.zeros(1, 1, config.past, 8), torch.zeros(1, 1, config.past, 8), layer_idx=0)
    attention = None if a.get("attention_mask", 0) is None else torch.tensor(entry["value"])
    kw = dict(config=text, inputs_embeds=torch.zeros(1, config.new, 8), attention_mask=attention, cache=cache)
    if "position_ids" in a:
        kw["position_ids"] = torch.tensor([a["position_ids"][config.past:]])
    if "sliding_window" in a:
        text.sliding_window = a["sliding_window"]
        mask = create_sliding_window_causal_mask(**kw, allow_is_causal_skip=False)
    elif "attention_chunk_size" in a:
        text.attention_chunk_size = a["attention_chunk_size"]
        mask = create_chunked_causal_mask(**kw, allow_is_causal_skip=False)
    else:
        if "token_type_ids" in a and config.past == 0:  # what PaliGemmaModel passes on the first iteration
            kw["block_sequence_ids"] = torch.tensor([[0 if x == 0 else -1 for x in a["token_type_ids"]]])
        mask = create_causal_mask(**kw, allow_is_causal_skip=False)
    return mask[0, 0].tolist()


def test_random_configurations_against_the_mask_builders():
    rng = random.Random(2405)
    checked = set()
    for _ in range(160):
        config = random_config(rng)
        if config.tree is not None:
            continue  # a tree needs a 4D mask: the lens says so (test_lens_patterns.py)
        entry = lens(config.table(), "hf")
        assert hf_table(config, entry) == entry["table"], (config, entry["arguments"])
        assert entry["matches"] == (entry["table"] == [list(r) for r in config.table().allowed])
        checked.update(name for name in entry["arguments"] if name != "attention_mask")
    assert checked >= {"sliding_window", "attention_chunk_size", "token_type_ids", "position_ids"}
