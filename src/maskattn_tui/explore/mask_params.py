"""The mask rules' parameters as one record: what the explorer draws
(ExploreConfig adds the inputs, temperature and policy) and what the
doctor's --expect states (doctor.expect.ExpectOptions adds a saved mask's
bounds). Its fields are explore.fields' MASK_FIELDS, with their defaults
(tests/test_explore_fields.py checks the two agree).

The record also says, once, how its user-facing spelling becomes the
evaluators' (inclusive runs -> half-open, a two-sided window's `+ 1`,
window_right -> the keys after the query, chunk_origin): engine.rules'
Pattern (the per-cell rule the lesson reads, explore.patterns.pattern_of)
and doctor.rules' Rule (the numpy / interval rule of the doctor and scale,
doctor.rules.rule_of) are both built from these properties."""

from __future__ import annotations

from dataclasses import dataclass

from maskattn_tui.engine.rules import chunk_origin


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
    #: attention sinks: the first K real keys every query sees beside a window or chunk (StreamingLLM), or None
    sinks: int | None = None

    # --- the evaluators' spelling, written once ---------------------------------

    @property
    def two_sided(self) -> bool:
        """Without the causal rule a window is two-sided: HF's |q - k| <= W."""
        return self.window is not None and not self.causal

    @property
    def window_keys(self) -> int | None:
        """Keys up to and including the query's own: W (HF's sliding_window),
        W + 1 for a two-sided window (|q - k| <= W)."""
        return self.window + 1 if self.two_sided else self.window

    @property
    def window_after(self) -> int | None:
        """Keys after the query's own a two-sided window shows (window_right,
        else W); None when one-sided."""
        if not self.two_sided:
            return None
        return self.window if self.window_right is None else self.window_right

    @property
    def origin(self) -> int:
        """The first real token: chunks are counted from it (HF's chunked_overlay)."""
        return chunk_origin(self.pad, self.pad_side)

    @property
    def block_runs(self) -> tuple[tuple[int, int], ...]:
        """Bidirectional blocks as half-open runs [a, b)."""
        return tuple((a, b + 1) for a, b in self.bidirectional or ())

    @property
    def pad_key_runs(self) -> tuple[tuple[int, int], ...]:
        """PAD keys anywhere as half-open runs [a, b)."""
        return tuple((a, b + 1) for a, b in self.pad_keys or ())

    @property
    def sink_runs(self) -> tuple[tuple[int, int], ...]:
        """The sink keys as one half-open run [o, o + K) from the first real token."""
        stop = min(self.origin + (self.sinks or 0), self.filled)
        return ((self.origin, stop),) if stop > self.origin else ()

    @property
    def filled(self) -> int:
        """Keys holding a token (past + new): unused cache slots come after."""
        return self.past + self.new
