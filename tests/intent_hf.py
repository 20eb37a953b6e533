"""Masks transformers 5.24 really builds, for the intent tests: a tiny config,
a cache filled with `past` tokens the way a forward fills it, then one of
masking_utils' builders called as the modeling code calls it. Each returns
the bool table [B, Q, K] and the absolute positions the builder gave its
queries and keys (q_offset, kv_offset), read from the cache itself."""

from __future__ import annotations

import numpy as np
import torch
from transformers import cache_utils, masking_utils


def filled_cache(config, past: int, *, batch: int = 1, static: int | None = None):
    """A DynamicCache (or a StaticCache of `static` slots) from `config`, every
    layer updated with `past` tokens of random keys, as a prefill leaves it."""
    if static is None:
        cache = cache_utils.DynamicCache(config=config)
    else:
        cache = cache_utils.StaticCache(config=config, max_cache_len=static)
    heads, dim = config.num_key_value_heads, config.head_dim
    if past:
        for layer in range(config.num_hidden_layers):
            kv = torch.randn(batch, heads, past, dim)
            kwargs = {"cache_position": torch.arange(past)} if static is not None else {}
            cache.update(kv, kv.clone(), layer, kwargs)
    return cache


def sizes(cache, q_len: int, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The absolute positions the builder gives layer `layer`'s queries and
    keys: q_offset + row and kv_offset + column, as the cache reports them
    (get_query_offset, get_mask_sizes); no cache: both from 0."""
    if cache is None:
        return np.arange(q_len), np.arange(q_len)
    kv_len, kv_off = cache.get_mask_sizes(q_len, layer)
    return np.arange(q_len) + int(cache.get_query_offset(layer)), np.arange(kv_len) + kv_off


def as_bool(mask, batch: int, q_len: int, kv_len: int) -> np.ndarray:
    """The builder's result as bool [B, Q, K]: None (SDPA's is_causal shortcut)
    is refused so that a test never compares against a mask it did not get."""
    assert mask is not None, "the builder returned None: pass allow_*_skip=False"
    m = mask.detach().cpu()
    if m.dtype != torch.bool:  # eager: 0 / dtype-min additive
        m = m == 0
    return m.expand(batch, 1, q_len, kv_len)[:, 0].numpy().copy()


def build(fn, config, *, q_len: int, attention_mask=None, cache=None, batch: int = 1, **kwargs):
    """Call masking_utils' builder `fn` (a name) as modeling code does."""
    config._attn_implementation = "sdpa"
    embeds = torch.zeros(batch, q_len, 8)
    builder = getattr(masking_utils, fn)
    skip = "allow_is_bidirectional_skip" if "bidirectional" in fn else "allow_is_causal_skip"
    am = None if attention_mask is None else torch.as_tensor(np.asarray(attention_mask), dtype=torch.long)
    mask = builder(config=config, inputs_embeds=embeds, attention_mask=am, cache=cache, **{skip: False}, **kwargs)
    kv = kwargs["encoder_hidden_states"].shape[1] if "encoder_hidden_states" in kwargs else None
    return mask, kv
