"""The explorer's configuration: one frozen, validated record.

Layout of the sequence (decided here, used everywhere in `explore`):

* There are ``past + new`` positions, numbered 0 .. past + new - 1. Every
  position is a key; the KV cache holds keys 0 .. past - 1.
* The ``new`` queries of this batch sit at the absolute positions
  ``past .. past + new - 1`` (query row r is position ``past + r``).
* PAD occupies the first ``pad`` positions (``pad_side = "left"``) or the
  last ``pad`` positions (``"right"``) of the whole past + new sequence,
  and the positions of ``pad_keys`` (runs anywhere, e.g. 3-4,7).
* ``cache_slots`` unused static-cache slots follow as keys past + new ..
  past + new + slots - 1 (HF StaticCache with max_cache_len = past + new +
  slots): no row reads them, and their K and V are the cache's zeros.
  A PAD position is PAD as a key (nobody may read it) and, if it is also a
  query, that query row is *flagged* (`query_is_pad`), not blanked: its
  output exists but means nothing. With left padding and the causal rule a
  PAD query can see only PAD keys, so its row has no visible key at all -
  that is the case the empty-row policy decides.

Inputs are generated from the seed unless given explicitly: Q and K have
width 2 with whole numbers in -2..2, V has width 1 with multiples of 10 in
10..90. Each row depends only on (seed, matrix, absolute position), so
changing past/new keeps the numbers already on screen.

Overrides: `v_override` sets V at a key position (every component of that
row) - e.g. 9999 at future positions; `score_override` sets one scaled score
(before masking and before the temperature) directly.

Every invalid value raises `MaskattnError` with a `field` param naming the
configuration field (= the scenario-file key)."""

from __future__ import annotations

import math
import random
from functools import lru_cache
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from maskattn_tui.errors import MaskattnError
from maskattn_tui.engine.matrices import Matrix, validate_matrix
from maskattn_tui.engine.rules import Pattern
from maskattn_tui.engine.visibility import VisibilityTable, build_table

from maskattn_tui.explore.fields import BY_NAME, FIELDS as SCHEMA, NAMES, bounds
from maskattn_tui.explore.patterns import PATTERN_FIELDS, check_pattern, pattern_of
from maskattn_tui.explore.mask_params import MaskParams

PAST_RANGE = (BY_NAME["past"].lo, BY_NAME["past"].hi)
NEW_RANGE = (BY_NAME["new"].lo, BY_NAME["new"].hi)
#: Width of generated Q and K rows, and of generated V rows.
INPUT_DIM = 2
VALUE_DIM = 1
#: Generated Q/K entries are whole numbers in this range; V is 10 x (1..9).
QK_RANGE = (-2, 2)
V_FACTOR_RANGE = (1, 9)
V_STEP = 10

#: Field names, in the order files and JSON show them.
FIELDS = NAMES


def _whole(field: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MaskattnError("explore_whole_number", field=field, value=value)
    if not lo <= value <= hi:
        raise MaskattnError("explore_range", field=field, value=value, lo=lo, hi=hi)
    return value


def checked_simple(f, value: object, length: int) -> object:
    """A field of a simple kind, checked against its schema entry."""
    if f.kind == "optional_int" and value is None:
        return None
    if f.kind == "bool":
        if not isinstance(value, bool):
            raise MaskattnError("explore_bool", field=f.name, value=value)
        return value
    if f.kind == "choice":
        if value not in f.choices:
            if f.name == "pad_side":
                raise MaskattnError("explore_pad_side", field=f.name, value=value)
            raise MaskattnError("explore_policy", field=f.name, value=value, choices=", ".join(f.choices))
        return value
    lo, hi = bounds(f, length)
    if f.kind == "number":
        number = _number(f.name, value)
        if not lo <= number <= hi:
            raise MaskattnError("explore_range", field=f.name, value=value, lo=f"{lo:g}", hi=f"{hi:g}")
        return number
    if f.name == "pad":  # its own message names past + new
        if isinstance(value, bool) or not isinstance(value, int):
            raise MaskattnError("explore_whole_number", field="pad", value=value)
        if not lo <= value <= hi:
            raise MaskattnError("explore_pad_range", field="pad", value=value, hi=hi)
        return value
    return _whole(f.name, value, lo, hi)


def _number(field: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MaskattnError("explore_number", field=field, value=value)
    if not math.isfinite(value):
        raise MaskattnError("explore_finite", field=field, value=value)
    return float(value)


def _rng(seed: int, matrix: str, position: int) -> random.Random:
    # A str seed is hashed with SHA-512 by `random`: stable across runs and
    # platforms, independent of PYTHONHASHSEED.
    return random.Random(f"maskattn-explore/{seed}/{matrix}/{position}")


@lru_cache(maxsize=32)  # each value costs a seeded generator; a view asks for them many times
def generate_inputs(past: int, new: int, seed: int) -> tuple[Matrix, Matrix, Matrix]:
    """Deterministic, hand-checkable Q (new x 2), K (past+new x 2) and
    V (past+new x 1) for this seed. Row j of K and V, and the query at
    absolute position p, depend only on (seed, j) or (seed, p)."""
    lo, hi = QK_RANGE
    q = tuple(
        tuple(float(x) for x in _draw(_rng(seed, "q", p), INPUT_DIM, lo, hi))
        for p in range(past, past + new)
    )
    k = tuple(
        tuple(float(x) for x in _draw(_rng(seed, "k", j), INPUT_DIM, lo, hi))
        for j in range(past + new)
    )
    vlo, vhi = V_FACTOR_RANGE
    v = tuple(
        tuple(float(V_STEP * x) for x in _draw(_rng(seed, "v", j), VALUE_DIM, vlo, vhi))
        for j in range(past + new)
    )
    return q, k, v


def _draw(rng: random.Random, n: int, lo: int, hi: int) -> list[int]:
    return [rng.randint(lo, hi) for _ in range(n)]


def input_row(seed: int, matrix: str, position: int, n: int, lo: int, hi: int) -> list[int]:
    """Row `position` of q, k or v (`matrix`) as generate_inputs draws it,
    alone (scale's long rows draw only the rows they show)."""
    return _draw(_rng(seed, matrix, position), n, lo, hi)


def _matrix(field: str, value: object, rows: int, why: str) -> Matrix:
    m = validate_matrix(value, field)  # messages name the field (q, k or v)
    if len(m) != rows:
        raise MaskattnError(f"explore_rows_{why}", field=field, got=len(m), want=rows)
    return m


def _pairs(field: str, value: object, arity: int) -> list[tuple]:
    if isinstance(value, Mapping):
        items = [(*(key if isinstance(key, tuple) else (key,)), val) for key, val in value.items()]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise MaskattnError(f"explore_override_shape_{arity}", field=field, index=0, value=value)
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, (list, tuple)) or len(item) != arity:
            raise MaskattnError(f"explore_override_shape_{arity}", field=field, index=i, value=item)
        out.append(tuple(item))
    return out


def _index(field: str, entry: int, value: object, hi: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= hi:
        raise MaskattnError(
            f"explore_override_{what}", field=field, index=entry, value=value, hi=hi
        )
    return value


def _override_value(field: str, entry: int, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise MaskattnError("explore_override_value", field=field, index=entry, value=value)
    return float(value)


@dataclass(frozen=True)
class ExploreConfig(MaskParams):
    """What the user explores. Construct with keywords; invalid values raise
    MaskattnError. Change with `.replace(**changes)` (validated again), so an
    out-of-range value never replaces a good configuration."""

    temperature: float = 1.0
    empty_row_policy: str = "error"
    seed: int = 0
    q: Matrix | None = None  # explicit Q (new rows), or None: generated
    k: Matrix | None = None  # explicit K (past + new rows), or None
    v: Matrix | None = None  # explicit V (past + new rows), or None
    #: ((key position, value), ...): V at that key set to value (sorted, unique)
    v_override: tuple[tuple[int, float], ...] = ()
    #: ((query row, key position, score), ...): scaled score set directly
    score_override: tuple[tuple[int, int, float], ...] = ()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        past = _whole("past", self.past, *PAST_RANGE)
        new = _whole("new", self.new, *NEW_RANGE)
        length = past + new
        for f in SCHEMA:
            if f.kind in ("int", "number", "bool", "choice", "optional_int") and f.name not in ("past", "new"):
                set_(self, f.name, checked_simple(f, getattr(self, f.name), length))
        check_pattern(self)
        if self.q is not None:
            set_(self, "q", _matrix("q", self.q, new, "q"))
        if self.k is not None:  # (the unused slots' zeros are added by inputs())
            set_(self, "k", _matrix("k", self.k, length, "kv"))
        if self.v is not None:
            set_(self, "v", _matrix("v", self.v, length, "kv"))
        dq = len(self.q[0]) if self.q is not None else INPUT_DIM
        dk = len(self.k[0]) if self.k is not None else INPUT_DIM
        if dq != dk:
            raise MaskattnError("explore_dim_qk", field="k" if self.k is not None else "q", dq=dq, dk=dk)

        v_override: dict[int, float] = {}
        for i, (key, value) in enumerate(_pairs("v_override", self.v_override, 2)):
            key = _index("v_override", i, key, length - 1, "key")
            v_override[key] = _override_value("v_override", i, value)
        set_(self, "v_override", tuple(sorted(v_override.items())))
        scores: dict[tuple[int, int], float] = {}
        for i, (row, key, value) in enumerate(_pairs("score_override", self.score_override, 3)):
            row = _index("score_override", i, row, new - 1, "row")
            key = _index("score_override", i, key, length - 1, "key")
            scores[(row, key)] = _override_value("score_override", i, value)
        set_(self, "score_override", tuple((r, c, s) for (r, c), s in sorted(scores.items())))

    # --- changing -----------------------------------------------------------

    def replace(self, **changes: object) -> "ExploreConfig":
        """A new, validated configuration; raises MaskattnError and leaves
        this one as it was if a value is bad."""
        return replace(self, **changes)

    # --- the layout -----------------------------------------------------------

    @property
    def length(self) -> int:
        """past + new: the number of key positions."""
        return self.past + self.new

    @property
    def query_positions(self) -> tuple[int, ...]:
        return tuple(range(self.past, self.length))

    @property
    def key_positions(self) -> tuple[int, ...]:
        """0 .. past + new - 1, then the unused cache slots."""
        return tuple(range(self.length + self.cache_slots))

    @property
    def pad_positions(self) -> tuple[int, ...]:
        if self.pad_side == "left":
            side = set(range(self.pad))
        else:
            side = set(range(self.length - self.pad, self.length))
        return tuple(sorted(side.union(*(range(a, b + 1) for a, b in self.pad_keys or ()))))

    @property
    def key_is_pad(self) -> tuple[bool, ...]:
        pads = set(self.pad_positions)
        return tuple(j in pads for j in self.key_positions)

    @property
    def query_is_pad(self) -> tuple[bool, ...]:
        """Per query row: is this query's own position PAD? (flagged only)"""
        pads = set(self.pad_positions)
        return tuple(p in pads for p in self.query_positions)

    @property
    def future_keys(self) -> tuple[int, ...]:
        """Key positions in the future of the first new query (> past):
        where a leak probe puts its tell-tale value."""
        return tuple(range(self.past + 1, self.length))

    def pattern(self, causal: bool | None = None) -> Pattern:
        """The mask rules of this configuration (engine/rules.py)."""
        return pattern_of(self, self.causal if causal is None else causal)

    def table(self, causal: bool | None = None, **rules: object) -> VisibilityTable:
        """The correct visibility table (absolute positions, PAD keys, the
        configured patterns); `causal` overrides the configured rule (the
        causal-off experiment) and `rules` the pattern's parameters (e.g.
        documents=None: the same positions without the document mask)."""
        causal = self.causal if causal is None else causal
        pattern = self.pattern(causal)
        if rules:
            pattern = replace(pattern, **rules)
        return build_table(self.query_positions, self.key_positions, self.key_is_pad, causal, pattern)

    @property
    def has_pattern(self) -> bool:
        """Is any rule beyond causal and PAD on? (PAD keys anywhere are PAD.)"""
        return self.cache_slots > 0 or self.sinks is not None or any(getattr(self, name) is not None for name in PATTERN_FIELDS)

    def generated_inputs(self) -> tuple[Matrix, Matrix, Matrix]:
        """Q, K, V from the seed (before explicit inputs and overrides)."""
        return generate_inputs(self.past, self.new, self.seed)

    def inputs(self) -> tuple[Matrix, Matrix, Matrix]:
        """The effective Q, K, V: explicit ones where given, generated
        otherwise, with `v_override` applied to V."""
        gq, gk, gv = self.generated_inputs()
        q = self.q if self.q is not None else gq
        k = self.k if self.k is not None else gk
        v = self.v if self.v is not None else gv
        v = apply_v(v, self.v_override)
        if self.cache_slots:  # a static cache's unused slots hold zeros
            k = k + ((0.0,) * len(k[0]),) * self.cache_slots
            v = v + ((0.0,) * len(v[0]),) * self.cache_slots
        return q, k, v


def apply_v(v: Matrix, settings: Iterable[tuple[int, float]]) -> Matrix:
    """V with each (key, value) in `settings` replacing that key's row."""
    rows = [list(r) for r in v]
    for key, value in settings:
        rows[key] = [float(value)] * len(rows[key])
    return tuple(tuple(r) for r in rows)
