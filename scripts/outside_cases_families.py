"""More masks for scripts/outside_check_doctor.py: the families the doctor
had misread (issue 31), each built by the library that builds it, and one
planted defect in each, which must be flagged with its cells.

  - packed encoder documents without a causal rule (FlexAttention ids[q] == ids[kv])
  - Longformer / BigBird global tokens + a local window, a causal window with
    a global key 0, StreamingLLM sink keys + a causal window (FlexAttention)
  - cross-attention over encoder keys with PAD (transformers create_bidirectional_mask)
  - per-head masks (a mask_mod that reads h)
  - Flax's float32 1/0 masks (make_causal_mask, make_attention_mask, combine_masks)
    and Keras 3's (torch backend) bool masks
  - biases: T5's relative position bias (alone, and plus the eager causal mask),
    BLOOM's ALiBi (build_alibi_tensor, alone and plus the causal mask)

Each case is (name, tensor, want) as in outside_check_doctor.cases()."""

from __future__ import annotations

import os

import numpy as np
import torch

os.environ.setdefault("KERAS_BACKEND", "torch")


def _flex():
    from torch.nn.attention.flex_attention import create_mask

    def mask(mod, q, kv=None, heads=1):
        return create_mask(mod, 1, heads, q, q if kv is None else kv, device="cpu")

    out = []
    for lengths in ((5, 3, 8), (4, 4, 4, 4), (6, 10)):
        ids = torch.repeat_interleave(torch.arange(len(lengths)), torch.tensor(lengths))
        m = mask(lambda b, h, q, kv: ids[q] == ids[kv], len(ids))
        docs = ",".join(map(str, lengths))
        out.append((f"flex-encoder-docs-{docs}", m, {"family": ("bidirectional-documents",), "documents": list(lengths),
                    "expect": ["--no-causal", "--documents", docs]}))
        broken = m.clone()
        broken[0, 0, 1, lengths[0]] = True  # a key of the next document leaks into the first
        out.append((f"bug-encoder-docs-{docs}", broken, {"flag": ("closest-rule", "error"), "cells": [[1, lengths[0]]]}))
    for g in ((0,), (0, 9)):
        glob = torch.zeros(16, dtype=torch.bool)
        glob[list(g)] = True
        m = mask(lambda b, h, q, kv: ((q - kv).abs() <= 2) | glob[q] | glob[kv], 16)
        out.append((f"flex-longformer-{len(g)}", m, {"family": ("global-window",), "polarity": "attend",
                    "globals": [[v, v + 1] for v in g], "no_pad": True}))
        broken = m.clone()
        broken[0, 0, 12, 15] = True  # a window one key too wide in one row
        out.append((f"bug-longformer-{len(g)}", broken, {"flag": ("closest-rule", "error"), "cells": [[12, 15]]}))
    m = mask(lambda b, h, q, kv: (kv <= q) & ((q - kv < 3) | (kv == 0)), 12)
    out.append(("flex-causal-window-global0", m, {"family": ("sink-window",), "polarity": "attend", "no_pad": True}))
    m = mask(lambda b, h, q, kv: (kv <= q) & ((q - kv < 4) | (kv < 2)), 16)
    out.append(("flex-sinks-window", m, {"family": ("sink-window",), "polarity": "attend", "no_pad": True}))
    broken = m.clone()
    broken[0, 0, 9, 10] = True  # the next token leaks
    out.append(("bug-sinks-window-leak", broken, {"flag": ("leak", "error"), "cells": [[9, 10]]}))
    off = m.clone()
    off[0, 0, 10, 6] = True  # one row's window one key too wide
    out.append(("bug-sinks-window-off-by-one", off, {"flag": ("closest-rule", "error"), "cells": [[10, 6]]}))
    # per-head: head 0 causal, head 1 a causal window of 3
    m = mask(lambda b, h, q, kv: (kv <= q) & ((h == 0) | (q - kv < 3)), 8, heads=2)
    out.append(("flex-per-head", m, {"family": ("causal", "window"), "heads_differ": True}))
    return out


def _hf():
    from transformers import BartConfig, T5Config
    from transformers import masking_utils as mu
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor
    from transformers.models.t5.modeling_t5 import T5Attention

    out = []
    cfg = BartConfig(d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                     decoder_attention_heads=2, vocab_size=50)
    cfg._attn_implementation = "sdpa"
    for q, k, pad in ((3, 7, 3), (2, 5, 1), (1, 6, 2)):
        am = torch.tensor([[1] * (k - pad) + [0] * pad])
        m = mu.create_bidirectional_mask(config=cfg, inputs_embeds=torch.zeros(1, q, 16), attention_mask=am,
                                         encoder_hidden_states=torch.zeros(1, k, 16), allow_is_bidirectional_skip=False)
        out.append((f"bart-cross-{q}x{k}-pad{pad}", m, {"family": ("cross-attention",), "no_pad_query": True,
                    "expect": ["--no-causal", "--past", str(k - q), "--new", str(q), "--pad", str(pad),
                               "--pad-side", "right"] if q <= k - pad else None}))
    torch.manual_seed(0)
    for decoder in (False, True):
        tcfg = T5Config(d_model=16, d_kv=8, num_heads=2, num_layers=1, vocab_size=50, is_decoder=decoder)
        attn = T5Attention(tcfg, has_relative_attention_bias=True)
        torch.nn.init.normal_(attn.relative_attention_bias.weight)
        bias = attn.compute_bias(6, 6).detach()
        name = "t5-bias-decoder" if decoder else "t5-bias-encoder"
        if decoder:
            tcfg._attn_implementation = "eager"
            causal = mu.create_causal_mask(config=tcfg, inputs_embeds=torch.zeros(1, 6, 16),
                                           attention_mask=torch.ones(1, 6, dtype=torch.long), cache=None,
                                           position_ids=torch.arange(6)[None], allow_is_causal_skip=False)
            out.append(("t5-bias-decoder-plus-mask", bias + causal, {"family": ("causal",), "bias": True}))
        out.append((name, bias, {"family": ("bidirectional",), "bias": True}))
    am = torch.tensor([[0, 1, 1, 1, 1, 1]])
    alibi = build_alibi_tensor(am, 4, torch.float32)  # (batch * heads, 1, S)
    out.append(("bloom-alibi", alibi, {"family": ("bidirectional", "cross-attention", "causal"), "bias": True}))
    bcfg = T5Config(d_model=16, num_heads=4, num_layers=1, vocab_size=50)
    bcfg._attn_implementation = "eager"
    causal = mu.create_causal_mask(config=bcfg, inputs_embeds=torch.zeros(1, 6, 16), attention_mask=am, cache=None,
                                   position_ids=torch.arange(6)[None], allow_is_causal_skip=False)
    out.append(("bloom-alibi-plus-mask", alibi.view(1, 4, 1, 6) + causal, {"family": ("causal",), "bias": True}))
    return out


def _flax_keras():
    import jax.numpy as jnp
    import keras
    from flax import linen as nn

    def torch_of(a):
        return torch.from_numpy(np.array(a))

    out = []
    x = jnp.ones((1, 6))
    valid = jnp.array([[1, 1, 1, 1, 0, 0]])
    causal = nn.make_causal_mask(x)
    out.append(("flax-causal", torch_of(causal), {"family": ("causal",), "keep_mask": True,
                "expect": []}))
    pad = nn.make_attention_mask(valid, valid)
    out.append(("flax-attention-pad", torch_of(pad), {"family": ("bidirectional",), "keep_mask": True}))
    both = nn.combine_masks(causal, pad)
    out.append(("flax-combine", torch_of(both), {"family": ("causal",), "keep_mask": True}))
    broken = np.array(both)
    broken[0, 0, 1, 2] = 1.0
    out.append(("bug-flax-combine-leak", torch.from_numpy(broken), {"flag": ("leak", "error"), "cells": [[1, 2]]}))
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    q = keras.ops.ones((1, 6, 8))
    m = mha._compute_attention_mask(q, q, use_causal_mask=True)
    out.append(("keras-causal", torch.as_tensor(keras.ops.convert_to_numpy(m)), {"family": ("causal",), "expect": []}))
    real = keras.ops.convert_to_tensor(np.array([[True, True, True, True, False, False]]))
    m = mha._compute_attention_mask(q, q, query_mask=real, value_mask=real, use_causal_mask=True)
    out.append(("keras-causal-pad", torch.as_tensor(keras.ops.convert_to_numpy(m)), {"family": ("causal",)}))
    out.append(("keras-causal-pad-float", torch.as_tensor(keras.ops.convert_to_numpy(m)).float(),
                {"family": ("causal",), "keep_mask": True}))
    return out


def _leaks():
    m = torch.ones(8, 8, dtype=torch.bool).tril()
    m[2, 3] = True  # a single next-token leak: not a two-token image block
    return [("bug-next-token-leak", m, {"flag": ("leak", "error"), "cells": [[2, 3]]})]


def cases():
    return _flex() + _hf() + _flax_keras() + _leaks()
