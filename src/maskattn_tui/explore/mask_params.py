"""The mask rules' parameters as one record: what the explorer draws
(ExploreConfig adds the inputs, temperature and policy) and what the
doctor's --expect states (doctor.expect.ExpectOptions adds a saved mask's
bounds). Its fields are explore.fields' MASK_FIELDS, with their defaults
(tests/test_explore_fields.py checks the two agree)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MaskParams:
    past: int = 3
    new: int = 2
    pad: int = 0
    pad_side: str = "left"
    causal: bool = True
    #: sliding window of W keys including the query's own position (HF), or None
    window: int | None = None
    #: chunked attention: chunks of C positions (Llama 4), or None
    chunk: int | None = None
    #: prefix-LM: keys < prefix are visible to every query, or None
    prefix: int | None = None
    #: packed documents: lengths summing to past + new, or None
    documents: tuple[int, ...] | None = None
    #: draft tree over the new tokens: one parent per new token (-1 = the prefix), or None
    tree: tuple[int, ...] | None = None
    #: with causal off, a window's keys after the query (default: window): FlashAttention's right
    window_right: int | None = None
    #: bidirectional blocks, inclusive runs (first, last) of positions, or None
    bidirectional: tuple[tuple[int, int], ...] | None = None
    #: PAD key positions anywhere, inclusive runs (first, last), or None
    pad_keys: tuple[tuple[int, int], ...] | None = None
    #: unused static-cache slots after the past + new keys
    cache_slots: int = 0
