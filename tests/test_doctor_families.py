"""The doctor on masks the libraries build themselves (transformers 5
masking_utils with tiny offline configs and caches, torch's own mask
helpers, FlexAttention create_mask on CPU), saved as files and read back.
What each mask *is* comes from how the library was asked to build it;
the doctor must read it so, and never give an error-level finding (or
advice) that would break it. Issue 16, points 1-8, 16."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from transformers import MistralConfig  # noqa: E402
from transformers import masking_utils as mu  # noqa: E402
from transformers.cache_utils import DynamicCache, StaticCache  # noqa: E402

from maskattn_tui.cli.commands import main  # noqa: E402
from maskattn_tui.doctor import diagnose, load_mask  # noqa: E402
from maskattn_tui.doctor.report import finding_message  # noqa: E402

from helpers import tiny_config  # noqa: E402


def config(impl="sdpa", cls=None, **extra):
    return tiny_config(cls, impl, **extra)


def saved(tmp_path, tensor, name="mask.npy", **slice_):
    np.save(tmp_path / name, tensor.numpy())
    return load_mask(tmp_path / name, **slice_)


def diagnosed(tmp_path, tensor, **slice_):
    mask, info = saved(tmp_path, tensor, **slice_)
    return diagnose(mask, source=info)


def errors(d):
    return [f.code for f in d.findings if f.level == "error"]


def filled_cache(cls, tokens, **kw):
    cache = cls(config=config(), **kw)
    k = torch.zeros(1, 2, tokens, 16)
    cache.update(k, k, 0)
    return cache


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_additive_key_padding_mask_is_never_inverted(tmp_path, dtype):
    # BERT / T5: (1 - attention_mask[:, None, None, :]) * finfo.min, shape [B, 1, 1, S]
    attention_mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], dtype=dtype)
    extended = (1.0 - attention_mask[:, None, None, :]) * torch.finfo(dtype).min
    d = diagnosed(tmp_path, extended, batch=0, head=0)
    assert d.polarity == "attend" and "inverted" not in d.codes() and errors(d) == []
    assert d.pad_runs == ((4, 6),)  # the PAD keys where the 0s of attention_mask are
    assert "broadcast-rows" in d.codes()
    # broadcast to every query: read first as the key-padding mask it is (no query row is PAD)
    assert d.family == "cross-attention" and "pad-query-rows" not in d.codes()
    mask, info = load_mask(tmp_path / "mask.npy", batch=1, head=0)
    assert diagnose(mask, source=info).pad_runs == ()
    assert main(["doctor", str(tmp_path / "mask.npy"), "--strict"]) == 0


def test_one_query_row_keeps_the_bool_convention(tmp_path):
    m = mu.create_bidirectional_mask(config=config(), inputs_embeds=torch.zeros(2, 1, 32),
                                     attention_mask=torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]))
    assert m.dtype == torch.bool and tuple(m.shape) == (2, 1, 1, 6)
    d = diagnosed(tmp_path, m, batch=0, head=0)
    assert d.polarity == "attend" and d.polarity_assumed and "true-means-blocked" not in d.codes()
    assert "polarity-assumed" in d.codes() and "--polarity blocked" in finding_message(
        d.findings[d.codes().index("polarity-assumed")], d, "en")
    assert d.pad_runs == ((4, 6),) and errors(d) == []


def test_static_cache_slots_are_not_padding(tmp_path):
    cache = filled_cache(StaticCache, 5, max_cache_len=12)
    m = mu.create_causal_mask(config=config(), inputs_embeds=torch.zeros(1, 3, 32),
                              attention_mask=torch.ones(1, 8, dtype=torch.long), cache=cache,
                              position_ids=torch.arange(5, 8)[None])
    d = diagnosed(tmp_path, m)
    assert (d.family, d.offset, d.unused_slots) == ("static-cache", 5, (8, 12))
    assert d.pad_keys is None and d.pad_query_row_count == 0 and d.fit.comparison.count == 0
    assert errors(d) == [] and "static-cache" in d.codes()


def test_cross_attention_has_no_causal_rule_and_no_pad_queries(tmp_path):
    m = mu.create_bidirectional_mask(config=config(), inputs_embeds=torch.zeros(1, 4, 32),
                                     attention_mask=torch.tensor([[1, 1, 1, 1, 1, 0, 0]]),
                                     encoder_hidden_states=torch.zeros(1, 7, 32))
    d = diagnosed(tmp_path, m)
    assert d.family == "cross-attention" and d.prefix is None and not d.rule.causal
    assert d.pad_query_row_count == 0 and d.pad_runs == ((5, 7),) and errors(d) == []


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
def test_encoder_mask_is_bidirectional_not_a_prefix(tmp_path, impl):
    m = mu.create_bidirectional_mask(config=config(impl), inputs_embeds=torch.zeros(1, 6, 32),
                                     attention_mask=torch.tensor([[1, 1, 1, 1, 0, 0]]))
    d = diagnosed(tmp_path, m)
    assert d.family == "bidirectional" and d.prefix is None and "prefix" not in d.codes()
    assert d.pad_runs == ((4, 6),) and errors(d) == []


def test_two_sided_window_has_both_widths(tmp_path, capsys):
    m = mu.create_bidirectional_sliding_window_mask(config=config(cls=MistralConfig, sliding_window=2),
                                                    inputs_embeds=torch.zeros(1, 8, 32),
                                                    attention_mask=torch.ones(1, 8, dtype=torch.long))
    d = diagnosed(tmp_path, m)
    assert d.family == "two-sided-window" and (d.window - 1, d.rule.right_width) == (2, 2)
    text = finding_message(d.findings[d.codes().index("two-sided-window")], d, "en")
    assert "window_size=(2, 2)" in text and "sliding_window=2" in text
    assert main(["doctor", str(tmp_path / "mask.npy"), "--json"]) == 0
    import json
    doc = json.loads(capsys.readouterr().out)
    assert (doc["family"], doc["window_left"], doc["window_right"]) == ("two-sided-window", 2, 2)


def test_pad_keys_in_the_middle(tmp_path):
    # right padding, then generation with a cache: keys 3-4 are PAD in every row
    cache = filled_cache(DynamicCache, 5)
    m = mu.create_causal_mask(config=config(), inputs_embeds=torch.zeros(1, 2, 32),
                              attention_mask=torch.tensor([[1, 1, 1, 0, 0, 1, 1]]), cache=cache,
                              position_ids=torch.tensor([[3, 4]]))
    d = diagnosed(tmp_path, m)
    assert d.pad_runs == ((3, 5),) and d.fit.comparison.count == 0 and d.offset == 5
    assert "pad-gaps" in d.codes() and "closest-rule" not in d.codes() and errors(d) == []


def test_bidirectional_image_blocks_are_not_leaks(tmp_path):
    blocks = torch.tensor([[-1, -1, 0, 0, 0, -1, 1, 1, 1, -1]])
    m = mu.create_causal_mask(config=config(), inputs_embeds=torch.zeros(1, 10, 32),
                              attention_mask=torch.ones(1, 10, dtype=torch.long), cache=None,
                              position_ids=torch.arange(10)[None], block_sequence_ids=blocks)
    d = diagnosed(tmp_path, m)
    assert d.family == "blocks" and d.rule.blocks == ((2, 5), (6, 9)) and d.fit.comparison.count == 0
    assert errors(d) == [] and "leak" not in d.codes()


def test_library_causal_masks_keep_their_readings(tmp_path):
    square = torch.nn.Transformer.generate_square_subsequent_mask(5)  # float, -inf above the diagonal
    d = diagnosed(tmp_path, square)
    assert (d.family, d.polarity, d.representation.kind, d.codes()) == ("causal", "attend", "additive-inf", [])
    from torch.nn.attention.bias import causal_lower_right

    lower_right = causal_lower_right(2, 5)._materialize(torch.device("cpu"))
    d = diagnosed(tmp_path, lower_right)
    assert (d.family, d.offset, d.codes()) == ("causal", 3, [])


def test_flex_attention_create_mask(tmp_path):
    from torch.nn.attention.flex_attention import create_mask

    doc = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2])

    def packed(b, h, q, kv):
        return (kv <= q) & (doc[q] == doc[kv])

    def window(b, h, q, kv):
        return (kv <= q) & (q - kv <= 2)

    d = diagnosed(tmp_path, create_mask(packed, 1, 1, 8, 8, device="cpu"))
    assert d.documents == (3, 2, 3) and d.fit.comparison.count == 0 and errors(d) == []
    d = diagnosed(tmp_path, create_mask(window, 1, 1, 8, 8, device="cpu"))
    assert (d.family, d.window) == ("window", 3) and errors(d) == []


def test_chunked_and_sliding_causal_masks(tmp_path):
    c = config()
    c.attention_chunk_size = 3
    m = mu.create_chunked_causal_mask(config=c, inputs_embeds=torch.zeros(1, 7, 32),
                                      attention_mask=torch.ones(1, 7, dtype=torch.long), cache=None,
                                      position_ids=torch.arange(7)[None])
    d = diagnosed(tmp_path, m)
    assert d.chunk == 3 and d.fit.comparison.count == 0
    m = mu.create_sliding_window_causal_mask(config=config(cls=MistralConfig, sliding_window=3),
                                             inputs_embeds=torch.zeros(1, 7, 32),
                                             attention_mask=torch.ones(1, 7, dtype=torch.long), cache=None,
                                             position_ids=torch.arange(7)[None], allow_is_causal_skip=False)
    d = diagnosed(tmp_path, m)
    assert (d.family, d.window) == ("window", 3) and errors(d) == []


@pytest.mark.parametrize(("kind", "named"), [("sdpa", True), ("mha", False), ("additive", False)])
def test_top_left_fix_is_spelled_for_the_api(tmp_path, kind, named):
    table = torch.ones(2, 5, dtype=torch.bool).tril()  # is_causal=True's table with a 3-key cache
    mask = {"sdpa": table, "mha": ~table,
            "additive": torch.zeros(2, 5).masked_fill(~table, float("-inf"))}[kind]
    d = diagnosed(tmp_path, mask)
    text = finding_message(d.findings[d.codes().index("top-left")], d, "en")
    assert ("causal_lower_right" in text) == named
    assert {"sdpa": "tril(3)", "mha": "triu(4)", "additive": "triu(4)"}[kind] in text
