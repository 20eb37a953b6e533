"""The hf lens's prefix-LM claims run against transformers 5.24: a real
tiny PaliGemmaModel (random weights built from a config, no download)
decoding with a filled cache, and create_causal_mask with the remedies the
lens names (block_sequence_ids, or_mask_function)."""

from __future__ import annotations

import random

import pytest

from maskattn_tui.explore.api_lens import lens
from maskattn_tui.explore.config import ExploreConfig

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from transformers import DynamicCache, PaliGemmaConfig, PaliGemmaModel  # noqa: E402
from transformers.masking_utils import create_causal_mask  # noqa: E402


@pytest.fixture(scope="module")
def model():
    config = PaliGemmaConfig(
        text_config=dict(model_type="gemma", vocab_size=64, hidden_size=16, intermediate_size=32,
                         num_hidden_layers=1, num_attention_heads=1, num_key_value_heads=1, head_dim=16),
        vision_config=dict(model_type="siglip_vision_model", hidden_size=16, intermediate_size=32,
                           num_hidden_layers=1, num_attention_heads=1, image_size=16, patch_size=8),
        image_token_id=63, projection_dim=16)
    config._attn_implementation = "eager"
    config.text_config._attn_implementation = "eager"
    torch.manual_seed(0)
    return PaliGemmaModel(config).eval()


def _decode(model, config: ExploreConfig):
    """Prefill `past` tokens, then decode `new` with the filled cache, as
    generate does; returns (what the new queries read, the cache)."""
    n = config.length
    ids = torch.arange(1, n + 1)[None]
    token_type = torch.tensor([[0 if k < config.prefix else 1 for k in range(n)]])
    attention = torch.tensor([[0 if pad else 1 for pad in config.table().key_is_pad]])
    cache = DynamicCache(config=model.config.text_config)
    with torch.no_grad():
        if config.past:
            model(input_ids=ids[:, :config.past], token_type_ids=token_type[:, :config.past],
                  attention_mask=attention[:, :config.past], cache=cache, use_cache=True)
        out = model(input_ids=ids[:, config.past:], token_type_ids=token_type[:, config.past:],
                    attention_mask=attention, cache=cache, use_cache=True, output_attentions=True)
    return (out.attentions[0][0, 0] > 0).tolist(), cache


def test_a_filled_cache_drops_the_prefix_and_the_lens_says_so(model):
    config = ExploreConfig(past=2, new=3, prefix=4)
    entry = lens(config.table(), "hf")
    read, _ = _decode(model, config)
    assert read[0] == [True, True, True, False, False]  # query 2 cannot read prefix key 3
    assert entry["table"] == read and entry["matches"] is False and entry["differs"] == [[0, 3]]
    (limit,) = entry["limits"]
    assert "PaliGemmaModel" in limit and "block_sequence_ids" in limit and "or_mask_function" in limit
    assert "PaliGemmaModel" in lens(config.table(), "hf", "zh")["limits"][0]


def test_with_an_empty_cache_token_type_ids_do_reproduce_the_table(model):
    config = ExploreConfig(past=0, new=5, prefix=3)
    entry = lens(config.table(), "hf")
    read, _ = _decode(model, config)
    assert read == entry["table"] == [list(r) for r in config.table().allowed]
    assert entry["matches"] and entry["limits"] == []


def test_random_prefix_configurations_against_the_model(model):
    rng = random.Random(5)
    for _ in range(12):
        past, new = rng.randint(0, 4), rng.randint(1, 4)
        config = ExploreConfig(past=past, new=new, prefix=rng.randint(1, past + new), pad=rng.randint(0, 1))
        entry = lens(config.table(), "hf")
        read, _ = _decode(model, config)
        rows = [r for r, row in enumerate(entry["table"]) if any(row)]  # eager: an empty row reads all, uniformly
        assert [read[r] for r in rows] == [entry["table"][r] for r in rows], config
        assert entry["matches"] == (entry["table"] == [list(r) for r in config.table().allowed])
        assert bool(entry["limits"]) == (not entry["matches"]), config


def _remedy_masks(model, config: ExploreConfig):
    """create_causal_mask with the limit's two remedies, given the filled cache."""
    _, cache = _decode(model, config)
    cache.crop(-config.new)  # back to the `past` prefilled tokens
    embeds = torch.zeros(1, config.new, 16)
    attention = torch.tensor([[0 if pad else 1 for pad in config.table().key_is_pad]])
    groups = torch.tensor([[0 if k < config.prefix else -1 for k in range(config.length)]])
    text = model.config.get_text_config()
    common = dict(config=text, inputs_embeds=embeds, attention_mask=attention, cache=cache)
    prefix = config.prefix
    by_groups = create_causal_mask(**common, block_sequence_ids=groups, allow_is_causal_skip=False)
    by_or = create_causal_mask(**common, or_mask_function=lambda b, h, q_idx, kv_idx: kv_idx < prefix,
                               allow_is_causal_skip=False)
    return [(m[0, 0] == 0).tolist() for m in (by_groups, by_or)]  # eager: 0 = read, finfo.min = blocked


def test_the_named_remedies_reproduce_the_table(model):
    for config in [ExploreConfig(past=2, new=3, prefix=4), ExploreConfig(past=1, new=4, prefix=4, pad=1),
                   ExploreConfig(past=3, new=3, prefix=5)]:
        assert lens(config.table(), "hf")["limits"], config
        ours = [list(r) for r in config.table().allowed]
        assert _remedy_masks(model, config) == [ours, ours], config


def test_packed_documents_through_create_causal_mask():
    # the hf lens's document rule (position_ids, attention_mask=None, no cache) against HF's packed detection
    from transformers import LlamaConfig

    config = LlamaConfig(vocab_size=8, hidden_size=8, intermediate_size=8, num_hidden_layers=1,
                         num_attention_heads=1, num_key_value_heads=1)
    config._attn_implementation = "sdpa"
    rng = random.Random(3)
    for _ in range(10):
        n = rng.randint(2, 9)
        cuts = sorted(rng.sample(range(1, n), rng.randint(1, n - 1)))
        documents = tuple(b - a for a, b in zip([0, *cuts], [*cuts, n]))
        explore = ExploreConfig(past=0, new=n, documents=documents)
        entry = lens(explore.table(), "hf")
        assert entry["arguments"]["attention_mask"] is None
        mask = create_causal_mask(config=config, inputs_embeds=torch.zeros(1, n, 8), attention_mask=None, cache=None,
                                  position_ids=torch.tensor([entry["arguments"]["position_ids"]]),
                                  allow_is_causal_skip=False)
        assert mask[0, 0].tolist() == entry["table"] == [list(r) for r in explore.table().allowed], documents
