"""The visibility table: who may read whom.

Rows are queries (receivers) at absolute positions, columns are keys
(providers) at absolute positions. A cell is allowed, or blocked because the
key lies in the query's future (causal rule), because the key is PAD (valid
content rule), or both: the two rules coexist and neither replaces the other."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from maskattn_tui.errors import MaskattnError


class Cell(str, Enum):
    ALLOWED = "allowed"
    FUTURE = "future"
    PAD = "pad"
    FUTURE_PAD = "future+pad"

    @property
    def allowed(self) -> bool:
        return self is Cell.ALLOWED


def classify(query_position: int, key_position: int, key_is_pad: bool, causal: bool) -> Cell:
    """Why may this query (not) read this key?"""
    future = causal and key_position > query_position
    if future and key_is_pad:
        return Cell.FUTURE_PAD
    if future:
        return Cell.FUTURE
    if key_is_pad:
        return Cell.PAD
    return Cell.ALLOWED


@dataclass(frozen=True)
class VisibilityTable:
    query_positions: tuple[int, ...]
    key_positions: tuple[int, ...]
    key_is_pad: tuple[bool, ...]
    causal: bool
    cells: tuple[tuple[Cell, ...], ...]

    @property
    def allowed(self) -> tuple[tuple[bool, ...], ...]:
        """True = this query may read this key (the SDPA / HF / JAX polarity)."""
        return tuple(tuple(c.allowed for c in row) for row in self.cells)

    def row_has_visible_key(self, row: int) -> bool:
        return any(c.allowed for c in self.cells[row])

    @property
    def empty_rows(self) -> tuple[int, ...]:
        return tuple(i for i in range(len(self.cells)) if not self.row_has_visible_key(i))

    def additive(self) -> tuple[tuple[float, ...], ...]:
        """The additive form: 0 where allowed, -inf where blocked."""
        return tuple(tuple(0.0 if c.allowed else -math.inf for c in row) for row in self.cells)

    def differs_from(self, other: "VisibilityTable") -> tuple[tuple[bool, ...], ...]:
        """Per cell: does `other` allow something different from this table?"""
        return tuple(
            tuple(a.allowed != b.allowed for a, b in zip(r1, r2))
            for r1, r2 in zip(self.cells, other.cells)
        )


def _positions(values: Sequence[int], name: str) -> tuple[int, ...]:
    if len(values) == 0:
        raise MaskattnError("positions_empty", name=name)
    out = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise MaskattnError("position_bad", name=name, value=value)
        out.append(value)
    return tuple(out)


def build_table(
    query_positions: Sequence[int],
    key_positions: Sequence[int],
    key_is_pad: Sequence[bool] | None = None,
    causal: bool = True,
) -> VisibilityTable:
    """The table from absolute positions and the PAD flags of the keys."""
    qpos = _positions(query_positions, "query_positions")
    kpos = _positions(key_positions, "key_positions")
    pad = tuple(bool(x) for x in (key_is_pad if key_is_pad is not None else [False] * len(kpos)))
    if len(pad) != len(kpos):
        raise MaskattnError("pad_length", pad=len(pad), keys=len(kpos))
    cells = tuple(tuple(classify(qp, kp, kpad, causal) for kp, kpad in zip(kpos, pad)) for qp in qpos)
    return VisibilityTable(qpos, kpos, pad, bool(causal), cells)


def cache_positions(past: int, new: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """With a KV cache of `past` keys, the `new` queries sit at absolute
    positions past + row; the keys are 0 .. past + new - 1."""
    return tuple(past + r for r in range(new)), tuple(range(past + new))


def row_number_table(table: VisibilityTable) -> VisibilityTable:
    """The classic offset bug: the same keys, but each query placed at its row
    number in the batch instead of its absolute position (torch's `is_causal`
    top-left alignment when L != S)."""
    return build_table(
        tuple(range(len(table.query_positions))), table.key_positions, table.key_is_pad, table.causal
    )
