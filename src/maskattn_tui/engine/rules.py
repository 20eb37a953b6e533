"""The mask rules real models use, each a pure predicate over absolute
positions: "does this rule alone block query position p from key position k?"

A blocked cell names every rule that alone would block it, in RULE_ORDER.
The window is Hugging Face's (sliding_window_causal: W keys incl. self);
Mistral's reference and attention-gym's generate_sliding_window(w) keep w + 1.

* future   - causal: k > p (with a prefix-LM, keys < prefix are never future)
* pad      - the key is PAD
* slot     - the key is an unused static-cache slot (k >= slots_from): the
             cache holds max_cache_len keys, only the first past + new filled
* window   - sliding window of W keys including the query's own position,
             Hugging Face's convention: blocked when k <= p - W (the causal
             side is the future rule's business); two-sided (window_right R):
             also blocked when k > p + R
* islands  - bidirectional blocks [a, b) (image tokens, HF block_sequence_ids):
             a query and a key in one block are never future nor outside
             the window of each other (HF ORs the blocks over those rules)
* chunk    - chunked attention (Llama 4): floor((k - o) / C) != floor((p - o) / C),
             o = the first real token with left padding (HF's chunked_overlay)
* document - packed sequences: the key lies in another document
* sinks    - not a blocking rule: the first K real keys (from the chunk
             origin) are never outside the window nor another chunk
             (StreamingLLM's attention sinks); causal and PAD still hold
* tree     - a speculative draft tree: a draft key that is not an ancestor
             of the query (nor the query itself); it replaces `future`
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

RULE_ORDER = ("future", "pad", "slot", "window", "chunk", "document", "tree")


def chunk_origin(pad: int, pad_side: str) -> int:
    """Where chunks are counted from: the first real token, past left PAD
    (HF's chunked_overlay); right PAD does not move it."""
    return pad if pad_side == "left" else 0


def document_starts(lengths: tuple[int, ...]) -> tuple[int, ...]:
    """Absolute position of each document's first token."""
    starts, at = [], 0
    for n in lengths:
        starts.append(at)
        at += n
    return tuple(starts)


def document_of(lengths: tuple[int, ...]) -> tuple[int, ...]:
    """Per absolute position: the index of its document."""
    return tuple(d for d, n in enumerate(lengths) for _ in range(n))


def tree_depths(parents: tuple[int, ...]) -> tuple[int, ...]:
    """Depth of each draft node: 0 for a node attached to the committed prefix."""
    depths: list[int] = []
    for parent in parents:
        depths.append(0 if parent < 0 else depths[parent] + 1)
    return tuple(depths)


def tree_ancestors(parents: tuple[int, ...]) -> tuple[frozenset[int], ...]:
    """Per draft node: the set of its ancestors and itself (node indices)."""
    out: list[frozenset[int]] = []
    for i, parent in enumerate(parents):
        out.append(frozenset({i}) | (out[parent] if parent >= 0 else frozenset()))
    return tuple(out)


@dataclass(frozen=True)
class Pattern:
    """Which rules apply, with their parameters (None = rule off)."""

    causal: bool = True
    window: int | None = None
    chunk: int | None = None
    #: absolute position chunks are counted from (the first real token with left PAD)
    chunk_origin: int = 0
    prefix: int | None = None
    documents: tuple[int, ...] | None = None
    tree: tuple[int, ...] | None = None
    #: absolute position of draft node 0 (= the committed length, past)
    tree_start: int = 0
    #: a two-sided window: keys after the query's own position it shows (None: one-sided)
    window_right: int | None = None
    #: bidirectional blocks [start, stop) of absolute positions
    islands: tuple[tuple[int, int], ...] = ()
    #: first unused static-cache slot (None: no unused slots)
    slots_from: int | None = None
    #: attention sinks: keys chunk_origin .. chunk_origin + sinks - 1 escape the window and chunks
    sinks: int | None = None

    def is_sink(self, k: int) -> bool:
        return self.sinks is not None and 0 <= k - self.chunk_origin < self.sinks

    def same_block(self, p: int, k: int) -> bool:
        return any(a <= p < b and a <= k < b for a, b in self.islands)

    @cached_property
    def _doc(self) -> tuple[int, ...]:
        return document_of(self.documents or ())

    @cached_property
    def _ancestors(self) -> tuple[frozenset[int], ...]:
        return tree_ancestors(self.tree or ())

    def _draft(self, position: int) -> int | None:
        """The draft node at this absolute position, or None (committed)."""
        if self.tree is None:
            return None
        i = position - self.tree_start
        return i if 0 <= i < len(self.tree) else None

    def blocks(self, rule: str, p: int, k: int, key_is_pad: bool) -> bool:
        """Would `rule` alone block query position p from key position k?"""
        if rule == "future":
            if not self.causal or k <= p or (self.prefix is not None and k < self.prefix):
                return False
            if self.islands and self.same_block(p, k):
                return False
            if self.tree is not None and self._draft(k) is not None and self._draft(p) is not None:
                # Among draft nodes ancestry replaces time order: a later node
                # is also future only where the tree blocks it anyway ("FT").
                return self.blocks("tree", p, k, key_is_pad)
            return True
        if rule == "pad":
            return key_is_pad
        if rule == "slot":
            return self.slots_from is not None and k >= self.slots_from
        if rule == "window":
            if self.window is None or (self.islands and self.same_block(p, k)) or self.is_sink(k):
                return False
            return k <= p - self.window or (self.window_right is not None and k > p + self.window_right)
        if rule == "chunk":
            if self.chunk is None or self.is_sink(k):
                return False
            o = self.chunk_origin
            return (k - o) // self.chunk != (p - o) // self.chunk
        if rule == "document":
            if self.documents is None:
                return False
            doc = self._doc
            # a key past the documents (an unused cache slot) is in none of them
            return k >= len(doc) or p >= len(doc) or doc[k] != doc[p]
        if rule == "tree":
            qi, ki = self._draft(p), self._draft(k)
            return qi is not None and ki is not None and ki not in self._ancestors[qi]
        raise ValueError(f"unknown rule {rule!r}")

    def reasons(self, p: int, k: int, key_is_pad: bool) -> tuple[str, ...]:
        """Every rule that alone blocks (p, k), in RULE_ORDER; () = allowed."""
        return tuple(rule for rule in RULE_ORDER if self.blocks(rule, p, k, key_is_pad))

    def position_id(self, position: int) -> int:
        """The position a rotary embedding would use: restarted at 0 in each
        document; past + depth for a draft node; else the absolute position."""
        if self.documents is not None and position < len(self._doc):
            return position - document_starts(self.documents)[self._doc[position]]
        draft = self._draft(position)
        if draft is not None:
            return self.tree_start + tree_depths(self.tree)[draft]  # type: ignore[arg-type]
        return position
