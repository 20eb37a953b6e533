"""The flash lens against FlashAttention's documented semantics (no GPU
here, so the rules are stated below from the Dao-AILab/flash-attention
README, v2.1+, and the function signatures in flash_attn_interface.py):

* flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False,
  window_size=(-1, -1), ...)
* flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
  max_seqlen_k, dropout_p=0.0, softmax_scale=None, causal=False,
  window_size=(-1, -1), ...): each packed sequence is attended on its own.
* "If causal=True, the causal mask is aligned to the bottom right corner of
  the attention matrix." "Query at position i will only attend to keys
  between [i + seqlen_k - seqlen_q - window_size[0], i + seqlen_k - seqlen_q
  + window_size[1]] inclusive" (-1 = unbounded on that side)."""

from __future__ import annotations

import itertools
import random

import pytest

from maskattn_tui.explore.api_lens import lens
from maskattn_tui.explore.config import ExploreConfig

from test_mask_patterns import random_config

PARAMETERS = {
    "flash_attn.flash_attn_func": {"dropout_p", "softmax_scale", "causal", "window_size"},
    "flash_attn.flash_attn_varlen_func": {"cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q", "max_seqlen_k",
                                          "dropout_p", "softmax_scale", "causal", "window_size"},
}


def one_sequence(seqlen_q: int, seqlen_k: int, causal: bool, window=(-1, -1)) -> list[list[bool]]:
    left, right = window
    if causal:
        right = 0  # the causal mask is the window's right side at 0
    out = []
    for i in range(seqlen_q):
        lo = i + seqlen_k - seqlen_q - left if left >= 0 else -10**9
        hi = i + seqlen_k - seqlen_q + right if right >= 0 else 10**9
        out.append([lo <= j <= hi for j in range(seqlen_k)])
    return out


def reference(entry: dict, rows: int, cols: int, causal: bool) -> list[list[bool]]:
    """What FlashAttention computes for the lens's arguments: a block
    diagonal of one_sequence blocks."""
    a = entry["arguments"]
    assert set(a) <= PARAMETERS[entry["api"]], (entry["api"], a)
    cu_q, cu_k = a.get("cu_seqlens_q", [0, rows]), a.get("cu_seqlens_k", [0, cols])
    window = tuple(a.get("window_size", (-1, -1)))
    table = [[False] * cols for _ in range(rows)]
    for (q0, q1), (k0, k1) in zip(itertools.pairwise(cu_q), itertools.pairwise(cu_k)):
        for i, row in enumerate(one_sequence(q1 - q0, k1 - k0, causal, window)):
            table[q0 + i][k0:k1] = row
    if "max_seqlen_q" in a:
        assert a["max_seqlen_q"] == max(q1 - q0 for q0, q1 in itertools.pairwise(cu_q))
        assert a["max_seqlen_k"] == max(k1 - k0 for k0, k1 in itertools.pairwise(cu_k))
    return table


def ours(config: ExploreConfig) -> list[list[bool]]:
    return [list(r) for r in config.table().allowed]


def test_packed_documents_with_a_cache_go_through_varlen_with_both_cu_seqlens():
    config = ExploreConfig(past=2, new=4, documents=(3, 3))
    entry = lens(config.table(), "flash")
    assert entry["api"] == "flash_attn.flash_attn_varlen_func"
    assert entry["arguments"] == {"cu_seqlens_q": [0, 1, 4], "cu_seqlens_k": [0, 3, 6],
                                  "max_seqlen_q": 3, "max_seqlen_k": 3}
    assert reference(entry, 4, 6, True) == entry["table"] == ours(config)
    assert entry["matches"] is True


def test_non_causal_documents_stay_within_each_document():
    config = ExploreConfig(past=0, new=3, causal=False, documents=(1, 2))
    entry = lens(config.table(), "flash")
    assert entry["table"][0] == [True, False, False]  # row 0 is document 0 alone
    assert reference(entry, 3, 3, False) == entry["table"] == ours(config)
    assert entry["matches"] is True


def test_random_configurations_against_the_documented_rules():
    rng = random.Random(4021)
    matched = varlen = 0
    for _ in range(400):
        config = random_config(rng)
        table = config.table()
        for lang in ("en", "zh"):
            entry = lens(table, "flash", lang)
            got = reference(entry, config.new, config.length, config.causal)
            assert got == entry["table"], config
            assert entry["matches"] == (got == ours(config))
            if "cu_seqlens_k" in entry["arguments"]:
                varlen += 1
                starts = list(itertools.accumulate(config.documents, initial=0))
                assert entry["arguments"]["cu_seqlens_k"] == starts
                per_doc = [sum(s <= q < e for q in table.query_positions) for s, e in itertools.pairwise(starts)]
                assert entry["arguments"]["cu_seqlens_q"] == list(itertools.accumulate(per_doc, initial=0))
            expressible = config.pad == 0 and config.chunk is None and config.prefix is None and config.tree is None
            if expressible:
                assert entry["matches"] and not entry["limits"], config
                matched += 1
            else:
                assert entry["limits"], config
    assert matched > 100 and varlen > 50
