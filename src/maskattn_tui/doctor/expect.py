"""`--expect`: the table the explore options describe, and where a mask
differs from it.

    expected_allowed(ExpectOptions(past=3, new=2, window=4))   # (new, past+new) bool

ExpectOptions holds the mask fields of explore.fields (past, new, pad,
pad_side, causal, window, window_right, chunk, prefix, documents, tree,
bidirectional, pad_keys, cache_slots) and checks them as
ExploreConfig does - the same ranges (a saved mask's wider ones for past,
new, window and chunk: explore.fields.MASK_FIELDS), the same combination
checks (explore.patterns.check_pattern), the same messages.

Causal / PAD / past alone, up to the explorer's limits (32 + 32), come from
`ExploreConfig(...).table().allowed`, the explorer's own rule; anything
bigger, or with a pattern, from the vectorised rules in doctor.rules, which
equal engine.rules cell by cell (tests/test_doctor_unify.py)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from maskattn_tui.doctor.compare import Comparison, compare
from maskattn_tui.doctor.representation import Reading, classify, used_as
from maskattn_tui.doctor.rules import Rule, rule_of
from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore.config import checked_simple  # the explorer's check of one simple field
from maskattn_tui.explore.fields import BY_NAME, MASK_FIELDS
from maskattn_tui.explore.mask_params import MaskParams
from maskattn_tui.explore.patterns import check_pattern

#: ExploreConfig's ranges: within them the explorer's own table is used.
EXPLORE_MAX = {name: BY_NAME[name].hi for name in ("past", "new")}
_SIMPLE_KINDS = ("int", "bool", "choice", "optional_int")


@dataclass(frozen=True)
class ExpectOptions(MaskParams):
    """The mask fields --expect states; `new` is always given (the mask's rows)."""

    @property
    def keys(self) -> int:
        return self.past + self.new + self.cache_slots

    def __post_init__(self) -> None:
        """Raises MaskattnError (its `field` names the field) as ExploreConfig would."""
        fields = {f.name: f for f in MASK_FIELDS}
        set_ = object.__setattr__
        for name in ("past", "new"):  # their bounds do not depend on the length
            set_(self, name, checked_simple(fields[name], getattr(self, name), 0))
        for f in MASK_FIELDS:
            if f.kind in _SIMPLE_KINDS and f.name not in ("past", "new"):
                set_(self, f.name, checked_simple(f, getattr(self, f.name), self.past + self.new))
        check_pattern(self)

    def rule(self) -> Rule:
        return rule_of(self, self.keys)

    def as_dict(self) -> dict:
        out = asdict(self)
        for name in ("documents", "tree", "bidirectional", "pad_keys"):
            if out[name] is not None:
                out[name] = [list(x) if isinstance(x, tuple) else x for x in out[name]]
        return out


def _explorer_can(options: ExpectOptions) -> bool:
    return (options.window is options.chunk is options.prefix is options.documents is options.tree is None
            and options.bidirectional is options.pad_keys is options.sinks is None and not options.cache_slots
            and options.past <= EXPLORE_MAX["past"] and options.new <= EXPLORE_MAX["new"])


def expected_allowed(options: ExpectOptions, rows: tuple[int, int] | None = None) -> np.ndarray:
    """The expected table (True = may read), new x (past + new + slots); `rows`
    = (first, stop) for a band of it."""
    rule = options.rule()
    r0, r1 = rows if rows is not None else (0, options.new)
    if _explorer_can(options):
        from maskattn_tui.explore.config import ExploreConfig

        config = ExploreConfig(past=options.past, new=options.new, pad=options.pad,
                               pad_side=options.pad_side, causal=options.causal)
        return np.array(config.table().allowed, dtype=bool).reshape(options.new, -1)[r0:r1]
    return rule.table_rows(slice(r0, r1))


class _Expected:
    """The expected table as `compare` reads it (bands from expected_allowed)."""

    def __init__(self, options: ExpectOptions) -> None:
        self.options, self._rule = options, options.rule()
        self.causal = options.causal or options.tree is not None
        self.tree = options.tree

    def positions(self, rows):
        return self._rule.positions(rows)

    def intervals(self):
        return None  # compare cell by cell, through expected_allowed

    def table_rows(self, index) -> np.ndarray:
        index = np.asarray(index)
        band = expected_allowed(self.options, (int(index[0]), int(index[-1]) + 1))
        return band[index - index[0]]


def expect(mask: np.ndarray, options: ExpectOptions, polarity: str = "attend", name: str = "mask",
           float_mask: str | None = None) -> Comparison:
    """Where `mask` (read True/1/0.0 = attend, or flipped; a float 0/1 mask
    as `float_mask` says it is used) differs from the expected table; its
    shape must be new x (past + new)."""
    rows, keys = mask.shape
    if (options.new, options.keys) != (rows, keys):
        raise MaskattnError("doctor_expect_shape", file=name, rows=rows, keys=keys, new=options.new,
                            past=options.past, want=options.keys)
    reading = Reading(mask, used_as(classify(mask, name), float_mask), polarity)
    return compare(reading, None, _Expected(options))  # row statistics unused: no intervals
