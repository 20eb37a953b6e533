"""The visibility table: who may read whom.

Rows are queries (receivers) at absolute positions, columns are keys
(providers) at absolute positions. A cell is allowed, or blocked because the
key lies in the query's future (causal rule), because the key is PAD (valid
content rule), or both: the two rules coexist and neither replaces the other.
Real models add more rules (engine/rules.py: window, chunk, prefix-LM,
documents, draft trees); a blocked cell names every rule that blocks it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from maskattn_tui.errors import MaskattnError
from maskattn_tui.engine.rules import RULE_ORDER, Pattern


class Cell(str):
    """Why a query may (not) read a key: "allowed", or the blocking rules
    joined by "+" in RULE_ORDER ("future", "future+pad", "future+chunk").
    Instances are shared per value, so `cell is Cell.FUTURE` works."""

    _known: dict[str, "Cell"] = {}

    def __new__(cls, value: str) -> "Cell":
        cell = cls._known.get(value)
        if cell is None:
            names = () if value == "allowed" else tuple(value.split("+"))
            canonical = tuple(n for n in RULE_ORDER if n in names)
            if value != "allowed" and names != canonical:
                raise ValueError(f"not a cell value: {value!r}")
            cell = super().__new__(cls, value)
            cls._known[value] = cell
        return cell

    @classmethod
    def of(cls, reasons: Sequence[str]) -> "Cell":
        return cls("+".join(reasons) if reasons else "allowed")

    @property
    def value(self) -> str:
        return str.__str__(self)

    @property
    def reasons(self) -> tuple[str, ...]:
        """The blocking rules, in RULE_ORDER; () when allowed."""
        return () if self.value == "allowed" else tuple(self.value.split("+"))

    @property
    def allowed(self) -> bool:
        return self.value == "allowed"

    def __repr__(self) -> str:
        return f"Cell({self.value!r})"


Cell.ALLOWED = Cell("allowed")  # type: ignore[attr-defined]
Cell.FUTURE = Cell("future")  # type: ignore[attr-defined]
Cell.PAD = Cell("pad")  # type: ignore[attr-defined]
Cell.FUTURE_PAD = Cell("future+pad")  # type: ignore[attr-defined]


def classify(query_position: int, key_position: int, key_is_pad: bool, causal: bool) -> Cell:
    """Why may this query (not) read this key? (causal and PAD only)"""
    return Cell.of(Pattern(causal=causal).reasons(query_position, key_position, key_is_pad))


@dataclass(frozen=True)
class VisibilityTable:
    query_positions: tuple[int, ...]
    key_positions: tuple[int, ...]
    key_is_pad: tuple[bool, ...]
    causal: bool
    cells: tuple[tuple[Cell, ...], ...]
    #: the rules beyond causal/PAD (None: causal and PAD only)
    pattern: Pattern | None = None
    #: the positions a rotary embedding would use (default: the absolute ones)
    query_position_ids: tuple[int, ...] | None = None
    key_position_ids: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.query_position_ids is None:
            object.__setattr__(self, "query_position_ids", self.query_positions)
        if self.key_position_ids is None:
            object.__setattr__(self, "key_position_ids", self.key_positions)

    @cached_property
    def values(self) -> frozenset[str]:
        """The distinct cell values ("allowed", "future", "window+chunk"...).
        Kept with the table: the legend asks on every row move, and a scan
        of 32 x 64 cells (three layouts tried each time) made a row move at
        32 + 32 cost 1.8 times one at 3 + 2."""
        return frozenset(c.value for row in self.cells for c in row)

    @property
    def reasons(self) -> tuple[tuple[tuple[str, ...], ...], ...]:
        """Per cell: the rules that block it, in RULE_ORDER (() = allowed)."""
        return tuple(tuple(c.reasons for c in row) for row in self.cells)

    @property
    def position_ids_differ(self) -> bool:
        return (self.query_position_ids != self.query_positions
                or self.key_position_ids != self.key_positions)

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
    pattern: Pattern | None = None,
) -> VisibilityTable:
    """The table from absolute positions and the PAD flags of the keys;
    `pattern` adds window / chunk / prefix / document / tree rules (its own
    `causal` is replaced by `causal`)."""
    qpos = _positions(query_positions, "query_positions")
    kpos = _positions(key_positions, "key_positions")
    pad = tuple(bool(x) for x in (key_is_pad if key_is_pad is not None else [False] * len(kpos)))
    if len(pad) != len(kpos):
        raise MaskattnError("pad_length", pad=len(pad), keys=len(kpos))
    rules = replace(pattern, causal=bool(causal)) if pattern is not None else Pattern(causal=bool(causal))
    cells = tuple(tuple(Cell.of(rules.reasons(qp, kp, kpad)) for kp, kpad in zip(kpos, pad)) for qp in qpos)
    if pattern is None:
        return VisibilityTable(qpos, kpos, pad, bool(causal), cells)
    return VisibilityTable(
        qpos, kpos, pad, bool(causal), cells, rules,
        tuple(rules.position_id(p) for p in qpos), tuple(rules.position_id(p) for p in kpos),
    )


def cache_positions(past: int, new: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """With a KV cache of `past` keys, the `new` queries sit at absolute
    positions past + row; the keys are 0 .. past + new - 1."""
    return tuple(past + r for r in range(new)), tuple(range(past + new))


def row_number_table(table: VisibilityTable) -> VisibilityTable:
    """The classic offset bug: the same keys, but each query placed at its row
    number in the batch instead of its absolute position (torch's `is_causal`
    top-left alignment when L != S)."""
    return build_table(
        tuple(range(len(table.query_positions))), table.key_positions, table.key_is_pad, table.causal,
        table.pattern,
    )
