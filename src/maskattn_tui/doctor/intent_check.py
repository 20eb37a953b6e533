"""`doctor FILE --config config.json`: the mask checked cell by cell against
the table each layer of that model is meant to see (intent.config derives
the intents, intent.table builds their tables).

Where the mask's rows and keys sit: its queries are at past + row (past =
keys - rows, or --past); with --past, keys fewer than past + rows are the
last ones (a sliding cache keeps the last window), more are a static
cache's unused slots after the written ones. Which keys are PAD the config
cannot say: --attention-mask states it; without it, a key hidden from every
query that the intent shows to some query is read as PAD, and said so."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from maskattn_tui.doctor.compare import Comparison, compare
from maskattn_tui.doctor.expect_run import SliceResult, compare_slices
from maskattn_tui.doctor.representation import Reading, classify
from maskattn_tui.errors import MaskattnError
from maskattn_tui.intent.config import Site
from maskattn_tui.intent.table import LayerIntent, intended_table, token_groups


@dataclass(frozen=True)
class Geometry:
    """The absolute positions of the mask's queries and key slots (-1: an
    unused slot), and whether --past placed them."""

    q_pos: np.ndarray
    k_pos: np.ndarray
    past: int
    past_given: bool


def geometry(rows: int, keys: int, past: int | None, cross: bool) -> Geometry:
    if cross:  # encoder keys: no offset, no causal rule between them and the queries
        return Geometry(np.arange(rows), np.arange(keys), 0, past is not None)
    if past is None:
        p = max(keys - rows, 0)
        return Geometry(np.arange(rows) + p, np.arange(keys), p, False)
    filled = past + rows
    if keys <= filled:  # the cache kept the last `keys` positions
        k_pos = np.arange(filled - keys, filled)
    else:  # a static cache: slots after the written ones hold nothing yet
        k_pos = np.where(np.arange(keys) < filled, np.arange(keys), -1)
    return Geometry(np.arange(rows) + past, k_pos, past, True)


@dataclass
class Inputs:
    """What the call gave besides the mask: the 2-D attention_mask and the
    token types, each per absolute position (or None)."""

    attention_mask: tuple[int, ...] | None = None
    token_type_ids: tuple[int, ...] | None = None
    pad_read: dict = field(default_factory=dict)  # slice index -> key slots read as PAD


DIRECTED = ("causal", "sliding", "chunked")


def _valid_from_mask(am: tuple[int, ...], k_pos: np.ndarray) -> np.ndarray:
    """A slot is real when the attention_mask is 1 at its position (beyond
    its end: PAD, as transformers pads it with 0)."""
    a = np.asarray(am, dtype=np.int64)
    inside = (k_pos >= 0) & (k_pos < a.size)
    return np.where(inside, a[np.clip(k_pos, 0, max(a.size - 1, 0))] != 0, False)


def _leading(pad: np.ndarray, k_pos: np.ndarray) -> int:
    """Left PAD read from the slots: the PAD keys at positions 0, 1, ... up
    to the first real one (0 when position 0 is not among the slots)."""
    held = {int(p): bool(x) for p, x in zip(k_pos, pad) if p >= 0}
    count = 0
    while held.get(count, False):
        count += 1
    return count


class Intended:
    """The intended table of one slice, as `compare` reads it, built a band
    of rows at a time (a 16,384² mask never gets a second dense table).

    PAD keys come from --attention-mask; without it, from `reading` (the
    slice itself): a key every query has hidden that the rule shows to
    some query is read as PAD (or an unused slot), and recorded in
    inputs.pad_read so that the report says so."""

    def __init__(self, intent: LayerIntent, geo: Geometry, inputs: Inputs, reading: Reading | None,
                 index: tuple = ()) -> None:
        self.intent, self.geo, self.tree = intent, geo, None
        self.causal = intent.kind in DIRECTED
        self.groups = None if inputs.token_type_ids is None else token_groups(inputs.token_type_ids)
        held = np.sort(geo.k_pos[geo.k_pos >= 0])
        # the key index of each query's own position (held slots come first): later keys are its future
        self._own = np.searchsorted(held, geo.q_pos, side="right") - 1
        self.valid, self.lead = None, 0
        if inputs.attention_mask is not None:
            self.valid = _valid_from_mask(inputs.attention_mask, geo.k_pos)
            self.lead = int((np.cumsum(inputs.attention_mask) == 0).sum())  # as create_chunked_causal_mask
        elif reading is not None:
            seen = np.zeros(geo.k_pos.size, dtype=bool)
            shown = np.zeros(geo.k_pos.size, dtype=bool)
            for r0, r1, band in reading.bands():
                seen |= band.any(axis=0)
                shown |= self._rows(geo.q_pos[r0:r1]).any(axis=0)
            pad = shown & ~seen
            inputs.pad_read[index] = [int(k) for k in np.flatnonzero(pad)]
            if pad.any():
                self.valid = ~pad
                self.lead = _leading(pad, geo.k_pos) if intent.kind == "chunked" else 0

    def _rows(self, q_pos: np.ndarray) -> np.ndarray:
        return intended_table(self.intent, q_pos, self.geo.k_pos, key_valid=self.valid, groups=self.groups,
                              left_padding=self.lead)

    def rows(self, r0: int, r1: int) -> np.ndarray:
        return self._rows(self.geo.q_pos[r0:r1])

    def positions(self, rows):
        return self._own[rows]

    def intervals(self):
        return None  # compared cell by cell, a band at a time

    def table_rows(self, index) -> np.ndarray:
        return self._rows(self.geo.q_pos[np.asarray(index)])


@dataclass(frozen=True)
class SiteResult:
    sites: tuple[Site, ...]  # every site with this intent
    intent: LayerIntent
    results: list[SliceResult]
    unheld: tuple[int, ...] = ()  # positions the rule shows that no key slot holds (the first ones)
    unheld_count: int = 0
    not_square: bool = False  # a bidirectional self-attention rule, a Q != K mask and no --past: not its table

    @property
    def count(self) -> int:
        return sum(r.comparison.count * len(r.members) for r in self.results)

    @property
    def match(self) -> bool:
        return self.count == 0 and self.unheld_count == 0 and not self.not_square


def unheld(intent: LayerIntent, geo: Geometry, inputs: Inputs, limit: int = 20) -> tuple[tuple[int, ...], int]:
    """Positions before the first held key that the rule shows to some query
    (--past given, keys fewer than past + rows): the cache dropped keys its
    layer still reads, e.g. a sliding cache one key short of its window, or
    a full layer handed a window's keys. PAD positions count only as
    --attention-mask says (without it every dropped position is real)."""
    held = geo.k_pos[geo.k_pos >= 0]
    if not geo.past_given or intent.kind == "cross" or not held.size or held.min() == 0:
        return (), 0
    dropped = np.arange(int(held.min()))
    valid = None if inputs.attention_mask is None else _valid_from_mask(inputs.attention_mask, dropped)
    groups = None if inputs.token_type_ids is None else token_groups(inputs.token_type_ids)
    lead = 0 if inputs.attention_mask is None else int((np.cumsum(inputs.attention_mask) == 0).sum())
    seen = np.zeros(dropped.size, dtype=bool)
    step = max(1, (1 << 22) // max(1, dropped.size))
    for r0 in range(0, geo.q_pos.size, step):
        seen |= intended_table(intent, geo.q_pos[r0:r0 + step], dropped, key_valid=valid, groups=groups,
                               left_padding=lead).any(axis=0)
    found = np.flatnonzero(seen)
    return tuple(int(p) for p in found[:limit]), int(found.size)


def check(array: np.ndarray, path: str, batch, head, polarity: str, sites: list[Site], geo_of,
          inputs: Inputs) -> list[SiteResult]:
    """Each distinct intent among `sites` against every chosen slice;
    `geo_of(site)` places the mask for it."""
    grouped: dict[LayerIntent, list[Site]] = {}
    for s in sites:
        if s.intent is not None:
            grouped.setdefault(_key(s.intent), []).append(s)
    out = []
    for same in grouped.values():
        intent, geo = same[0].intent, geo_of(same[0])
        if intent.kind in ("bidirectional", "bidirectional_sliding") and not geo.past_given \
                and array.shape[-2] != array.shape[-1]:
            # an encoder's queries are its keys: Q != K is a cache step or cross-attention, never this table
            out.append(SiteResult(tuple(same), intent, [], not_square=True))
            continue

        def want(index, mask, intent=intent, geo=geo) -> Comparison:
            rows, keys = mask.shape
            if (rows, keys) != (geo.q_pos.size, geo.k_pos.size):
                raise MaskattnError("intent_shape", file=path, rows=rows, keys=keys)
            reading = Reading(mask, classify(mask, path), polarity)
            return compare(reading, None, Intended(intent, geo, inputs, reading, index))

        out.append(SiteResult(tuple(same), intent, compare_slices(array, path, batch, head, want, polarity),
                              *unheld(intent, geo, inputs)))
    return out


def _key(intent: LayerIntent) -> LayerIntent:
    """Sites alike when their rule is (the source differs layer by layer)."""
    return LayerIntent(intent.kind, intent.window, intent.chunk, "", intent.window_bounds_groups)


#: --past values tried for a hint: at most this many table cells built in all.
HINT_CELLS = 1 << 26


def past_that_matches(mask: np.ndarray, path: str, polarity: str, intent: LayerIntent, inputs: Inputs) -> int | None:
    """The smallest --past under which `mask` (one slice) matches `intent`
    when the default (keys - rows) does not: the queries earlier than the
    last keys, as in a static cache whose slots after them are unused. None
    when none does, or when trying would build too many cells."""
    rows, keys = mask.shape
    if intent.kind not in DIRECTED or rows * keys * max(keys - rows, 1) > HINT_CELLS:
        return None
    reading = Reading(mask, classify(mask, path), polarity)
    quiet = Inputs(inputs.attention_mask, inputs.token_type_ids)
    for past in range(0, keys - rows):
        if compare(reading, None, Intended(intent, geometry(rows, keys, past, False), quiet, reading)).count == 0:
            return past
    return None
