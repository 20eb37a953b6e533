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


class _Fixed:
    """An intended table as `compare` reads it."""

    def __init__(self, table: np.ndarray, geo: Geometry, causal: bool) -> None:
        self.table, self.causal, self.tree = table, causal, None
        used = geo.k_pos >= 0
        # the key index of each query's own position: keys after it are its future
        self._own = np.array([int(((geo.k_pos <= q) & used).sum()) - 1 for q in geo.q_pos])

    def positions(self, rows):
        return self._own[rows]

    def intervals(self):
        return None

    def table_rows(self, index) -> np.ndarray:
        return self.table[np.asarray(index)]


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


def table_for(intent: LayerIntent, geo: Geometry, visible: np.ndarray | None, inputs: Inputs,
              index: tuple = ()) -> np.ndarray:
    """The intended table for one slice; `visible` (the slice's own table)
    is read for PAD keys only when no attention_mask says them."""
    groups = None if inputs.token_type_ids is None else token_groups(inputs.token_type_ids)
    if inputs.attention_mask is not None:
        valid = _valid_from_mask(inputs.attention_mask, geo.k_pos)
        lead = int((np.cumsum(inputs.attention_mask) == 0).sum())  # as create_chunked_causal_mask counts
        return intended_table(intent, geo.q_pos, geo.k_pos, key_valid=valid, groups=groups, left_padding=lead)
    plain = intended_table(intent, geo.q_pos, geo.k_pos, groups=groups)
    if visible is None:
        return plain
    pad = plain.any(axis=0) & ~visible.any(axis=0)
    inputs.pad_read[index] = [int(k) for k in np.flatnonzero(pad)]
    if not pad.any():
        return plain
    lead = _leading(pad, geo.k_pos) if intent.kind == "chunked" else 0
    return intended_table(intent, geo.q_pos, geo.k_pos, key_valid=~pad, groups=groups, left_padding=lead)


@dataclass(frozen=True)
class SiteResult:
    sites: tuple[Site, ...]  # every site with this intent
    intent: LayerIntent
    results: list[SliceResult]

    @property
    def count(self) -> int:
        return sum(r.comparison.count * len(r.members) for r in self.results)


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

        def want(index, mask, intent=intent, geo=geo) -> Comparison:
            rows, keys = mask.shape
            if (rows, keys) != (geo.q_pos.size, geo.k_pos.size):
                raise MaskattnError("intent_shape", file=path, rows=rows, keys=keys)
            reading = Reading(mask, classify(mask, path), polarity)
            table = table_for(intent, geo, reading.band(0, rows), inputs, index)
            return compare(reading, None, _Fixed(table, geo, intent.kind in ("causal", "sliding", "chunked")))

        out.append(SiteResult(tuple(same), intent, compare_slices(array, path, batch, head, want, polarity)))
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
    if intent.kind not in ("causal", "sliding", "chunked") or rows * keys * max(keys - rows, 1) > HINT_CELLS:
        return None
    reading = Reading(mask, classify(mask, path), polarity)
    visible = reading.band(0, rows)
    quiet = Inputs(inputs.attention_mask, inputs.token_type_ids)
    for past in range(0, keys - rows):
        geo = geometry(rows, keys, past, False)
        if np.array_equal(table_for(intent, geo, visible, quiet), visible):
            return past
    return None
