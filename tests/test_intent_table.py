"""intent.table against transformers 5.24's masking_utils, cell by cell: each
table here is built by the library's own builders from a tiny config and a
cache filled as a forward fills it, and compared with intended_table given
only the positions and the intent (never with the module's own output)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from helpers import seeded
from hypothesis import given
from hypothesis import strategies as st
from intent_hf import as_bool, build, filled_cache, sizes
from transformers import (BertConfig, Gemma3TextConfig, LlamaConfig, Llama4TextConfig,
                          ModernBertConfig)
from transformers.models.gemma3 import modeling_gemma3

from maskattn_tui.intent.table import LayerIntent, intended_table

TINY = dict(num_attention_heads=2, num_key_value_heads=1, head_dim=4, hidden_size=8, vocab_size=16)


def _pad_rows(batch: int, total: int, left: int, right: int) -> np.ndarray:
    """Row 0 left-padded by `left`, row 1 right-padded by `right`."""
    am = np.ones((batch, total), dtype=np.int64)
    am[0, :left] = 0
    if batch > 1 and right:
        am[1, total - right:] = 0
    return am


def _valid(am_row: np.ndarray, k_pos: np.ndarray) -> np.ndarray:
    """A key slot is real when the 2-D mask says so at its absolute position
    (beyond the mask's end: PAD, as prepare_padding_mask pads with 0)."""
    inside = (k_pos >= 0) & (k_pos < am_row.size)
    return np.where(inside, am_row[np.clip(k_pos, 0, am_row.size - 1)] == 1, False)


def _leading_pad(am_row: np.ndarray) -> int:
    return int((np.cumsum(am_row) == 0).sum())


def _check(hf: np.ndarray, intent: LayerIntent, q, k, am=None, chunked=False, **kw):
    for b in range(hf.shape[0]):
        valid = None if am is None else _valid(am[b], k)
        lp = _leading_pad(am[b]) if (chunked and am is not None) else 0
        ours = intended_table(intent, q, k, key_valid=valid, left_padding=lp, **kw)
        np.testing.assert_array_equal(ours, hf[b], err_msg=f"batch row {b}")


CASES = list(itertools.product([0, 2, 6], [1, 4], [0, 2]))  # past, q_len, left pad


@pytest.mark.parametrize("past,q_len,left", CASES)
def test_causal_with_a_dynamic_cache_and_padding(past, q_len, left):
    config = LlamaConfig(num_hidden_layers=1, **TINY)
    cache = filled_cache(config, past, batch=2)
    am = _pad_rows(2, past + q_len, left, 1)
    mask, _ = build("create_causal_mask", config, q_len=q_len, attention_mask=am, cache=cache, batch=2)
    q, k = sizes(cache, q_len, 0)
    _check(as_bool(mask, 2, q_len, k.size), LayerIntent("causal"), q, k, am)


@pytest.mark.parametrize("past,q_len,left", CASES)
def test_sliding_and_full_layers_with_a_cache_past_the_window(past, q_len, left):
    config = Gemma3TextConfig(num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"],
                              sliding_window=3, **TINY)
    cache = filled_cache(config, past, batch=2)
    am = _pad_rows(2, past + q_len, left, 1)
    mask, _ = build("create_sliding_window_causal_mask", config, q_len=q_len, attention_mask=am, cache=cache, batch=2)
    q, k = sizes(cache, q_len, 0)
    _check(as_bool(mask, 2, q_len, k.size), LayerIntent("sliding", window=3), q, k, am)
    full, _ = build("create_causal_mask", config, q_len=q_len, attention_mask=am, cache=cache, batch=2)
    q, k = sizes(cache, q_len, 1)
    _check(as_bool(full, 2, q_len, k.size), LayerIntent("causal"), q, k, am)


@pytest.mark.parametrize("past,q_len,left", [(6, 3, 0), (6, 3, 1), (7, 1, 0), (0, 9, 2), (3, 1, 1)])
def test_chunked_in_decode_past_a_chunk_boundary(past, q_len, left):
    config = Llama4TextConfig(num_hidden_layers=1, attention_chunk_size=4, intermediate_size=8,
                              intermediate_size_mlp=8, **TINY)
    cache = filled_cache(config, past, batch=2)
    am = _pad_rows(2, past + q_len, left, 0)
    mask, _ = build("create_chunked_causal_mask", config, q_len=q_len, attention_mask=am, cache=cache, batch=2)
    q, k = sizes(cache, q_len, 0)
    _check(as_bool(mask, 2, q_len, k.size), LayerIntent("chunked", chunk=4), q, k, am, chunked=True)


def test_left_padding_moves_the_chunk_boundaries():
    """The chunks are counted from the first real token: a table that counted
    them from slot 0 would differ here (so the keyword is not decorative)."""
    q = k = np.arange(6)
    shifted = intended_table(LayerIntent("chunked", chunk=2), q, k, left_padding=1)
    plain = intended_table(LayerIntent("chunked", chunk=2), q, k)
    assert shifted[2, 1] and not plain[2, 1]


@pytest.mark.parametrize("right", [0, 1, 3])
def test_bidirectional_encoder_with_pad(right):
    config = BertConfig(num_hidden_layers=1, hidden_size=8, num_attention_heads=2, intermediate_size=8)
    am = _pad_rows(2, 6, 2, right)
    mask, _ = build("create_bidirectional_mask", config, q_len=6, attention_mask=am, batch=2)
    pos = np.arange(6)
    _check(as_bool(mask, 2, 6, 6), LayerIntent("bidirectional"), pos, pos, am)


@pytest.mark.parametrize("local", [2, 4, 6])
def test_modernbert_local_layers(local):
    config = ModernBertConfig(local_attention=local, num_hidden_layers=3, hidden_size=8, num_attention_heads=2,
                              intermediate_size=8, vocab_size=16)
    am = _pad_rows(2, 9, 1, 2)
    mask, _ = build("create_bidirectional_sliding_window_mask", config, q_len=9, attention_mask=am, batch=2)
    pos = np.arange(9)
    _check(as_bool(mask, 2, 9, 9), LayerIntent("bidirectional_sliding", window=local // 2), pos, pos, am)


def test_cross_attention_over_padded_encoder_keys():
    config = BertConfig(num_hidden_layers=1, hidden_size=8, num_attention_heads=2, intermediate_size=8)
    am = np.array([[1, 1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1, 0]])
    enc = torch.zeros(2, 7, 8)
    mask, kv = build("create_bidirectional_mask", config, q_len=3, attention_mask=am, batch=2,
                     encoder_hidden_states=enc)
    _check(as_bool(mask, 2, 3, kv), LayerIntent("cross"), np.arange(3), np.arange(7), am)


TYPES = [[0, 1, 1, 1, 0, 0, 1, 1, 0, 0], [1, 1, 0, 0, 0, 1, 1, 1, 1, 0], [0] * 10]


@pytest.mark.parametrize("types", TYPES)
@pytest.mark.parametrize("past", [0, 4])
def test_image_blocks_full_and_generic_sliding(types, past):
    config = Gemma3TextConfig(num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"],
                              sliding_window=3, **TINY)
    cache = filled_cache(config, past)
    q_len = len(types) - past
    blocks = modeling_gemma3.get_block_sequence_ids_for_mask(torch.tensor([types]))
    groups = blocks[0].numpy()
    full, _ = build("create_causal_mask", config, q_len=q_len, cache=cache, block_sequence_ids=blocks)
    q, k = sizes(cache, q_len, 1)
    _check(as_bool(full, 1, q_len, k.size), LayerIntent("causal"), q, k, groups=groups)
    slid, _ = build("create_sliding_window_causal_mask", config, q_len=q_len, cache=cache,
                    block_sequence_ids=blocks)
    q, k = sizes(cache, q_len, 0)
    _check(as_bool(slid, 1, q_len, k.size), LayerIntent("sliding", window=3), q, k, groups=groups)


@pytest.mark.parametrize("types", TYPES)
def test_gemma3_vision_masks_cut_the_blocks_by_the_window(types):
    config = Gemma3TextConfig(num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"],
                              sliding_window=3, **TINY)
    config._attn_implementation = "sdpa"
    blocks = modeling_gemma3.get_block_sequence_ids_for_mask(torch.tensor([types]))
    n = len(types)
    masks = modeling_gemma3.create_masks_for_vision_model(
        config=config, inputs_embeds=torch.zeros(1, n, 8), attention_mask=torch.ones(1, n, dtype=torch.long),
        cache=None, position_ids=None, block_sequence_ids=blocks)
    pos, groups = np.arange(n), blocks[0].numpy()
    _check(as_bool(masks["full_attention"], 1, n, n), LayerIntent("causal"), pos, pos, groups=groups)
    bounded = LayerIntent("sliding", window=3, window_bounds_groups=True)
    _check(as_bool(masks["sliding_attention"], 1, n, n), bounded, pos, pos, groups=groups)
    if any(groups[i] >= 0 and groups[i] == groups[i + 3] for i in range(n - 3)):  # a block wider than the window
        loose = intended_table(LayerIntent("sliding", window=3), pos, pos, groups=groups)
        assert (loose != as_bool(masks["sliding_attention"], 1, n, n)[0]).any()


def test_gemma3_bidirectional_text_layers():
    """use_bidirectional_attention: full layers see every key; sliding layers
    |q - k| < sliding_window, i.e. a half-width of sliding_window - 1."""
    config = Gemma3TextConfig(num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"],
                              sliding_window=3, **TINY)
    am = _pad_rows(1, 8, 1, 0)
    full, _ = build("create_causal_mask", config, q_len=8, attention_mask=am,
                    or_mask_function=lambda *a: torch.tensor(True))
    slid, _ = build("create_sliding_window_causal_mask", config, q_len=8, attention_mask=am,
                    or_mask_function=modeling_gemma3._bidirectional_window_overlay(3))
    pos = np.arange(8)
    _check(as_bool(full, 1, 8, 8), LayerIntent("bidirectional"), pos, pos, am)
    _check(as_bool(slid, 1, 8, 8), LayerIntent("bidirectional_sliding", window=2), pos, pos, am)


@pytest.mark.parametrize("ids", [[0, 1, 2, 0, 1, 0, 1, 2], [0, 1, 2, 3, 4, 5, 6, 7], [3, 4, 0, 1, 2, 5, 6, 0]])
@pytest.mark.parametrize("fn,intent", [("create_causal_mask", LayerIntent("causal")),
                                       ("create_sliding_window_causal_mask", LayerIntent("sliding", window=2))])
def test_packed_documents_from_position_ids(ids, fn, intent):
    """No attention_mask and no cache: the library finds the documents in the
    position ids and keeps them apart."""
    config = Gemma3TextConfig(num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"],
                              sliding_window=2, **TINY)
    mask, _ = build(fn, config, q_len=8, position_ids=torch.tensor([ids]))
    pos = np.arange(8)
    _check(as_bool(mask, 1, 8, 8), intent, pos, pos, position_ids=np.array(ids))


@pytest.mark.parametrize("past,q_len", [(0, 3), (3, 1), (5, 2)])
def test_static_cache_unused_slots_are_never_visible(past, q_len):
    config = LlamaConfig(num_hidden_layers=1, **TINY)
    cache = filled_cache(config, past, static=9)
    mask, _ = build("create_causal_mask", config, q_len=q_len, cache=cache,
                    attention_mask=np.ones((1, past + q_len)))
    q, k = sizes(cache, q_len, 0)
    held = np.where(k < past + q_len, k, -1)  # slots past the last written token hold nothing
    _check(as_bool(mask, 1, q_len, k.size), LayerIntent("causal"), q, held)


def test_bad_intents_are_refused():
    for bad in (dict(kind="window"), dict(kind="sliding"), dict(kind="chunked", chunk=0)):
        with pytest.raises(ValueError):
            LayerIntent(**bad)
    with pytest.raises(ValueError):
        intended_table(LayerIntent("causal"), [0, 1], [0, 1], key_valid=[True])


@seeded(60)
@given(kind=st.sampled_from(["causal", "sliding", "chunked"]), size=st.integers(1, 5),
       past=st.integers(0, 9), q_len=st.integers(1, 5), left=st.integers(0, 4), right=st.integers(0, 2))
def test_any_cache_step_matches_the_library(kind, size, past, q_len, left, right):
    """Random layer kinds, windows, chunk sizes, cache lengths and padding:
    intended_table equals the library's builder on every cell of every row."""
    config = Llama4TextConfig(num_hidden_layers=1, attention_chunk_size=size, intermediate_size=8,
                              intermediate_size_mlp=8, layer_types=["chunked_attention"], **TINY) \
        if kind == "chunked" else Gemma3TextConfig(num_hidden_layers=1, sliding_window=size,
                                                    layer_types=["sliding_attention" if kind == "sliding"
                                                                 else "full_attention"], **TINY)
    cache = filled_cache(config, past, batch=2)
    total = past + q_len
    am = _pad_rows(2, total, min(left, total - 1), min(right, total - 1))
    fn = {"causal": "create_causal_mask", "sliding": "create_sliding_window_causal_mask",
          "chunked": "create_chunked_causal_mask"}[kind]
    mask, _ = build(fn, config, q_len=q_len, attention_mask=am, cache=cache, batch=2)
    q, k = sizes(cache, q_len, 0)
    intent = LayerIntent(kind, window=size if kind == "sliding" else None, chunk=size if kind == "chunked" else None)
    _check(as_bool(mask, 2, q_len, k.size), intent, q, k, am, chunked=kind == "chunked")
