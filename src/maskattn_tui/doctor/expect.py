"""`--expect`: the table the explore options describe, and where a mask
differs from it.

    expected_allowed(ExpectOptions(past=3, new=2, window=4))   # (new, past+new) bool

Causal / PAD / past alone, up to the explorer's limits (32 + 32), come from
`ExploreConfig(...).table().allowed`, the explorer's own rule; anything
bigger, or with --window/--chunk/--prefix/--documents/--tree, from the
vectorised rules in doctor.rules (HF conventions: window W = keys incl.
self, ``p-W < k <= p``; chunk C: same chunk and causal; prefix P: ``k < P``
or causal; documents: same document and causal; tree: committed keys,
ancestors and self)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from maskattn_tui.doctor.compare import Comparison, compare
from maskattn_tui.doctor.representation import Reading, classify
from maskattn_tui.doctor.rules import Rule
from maskattn_tui.errors import MaskattnError

#: ExploreConfig's ranges (explore.config PAST_RANGE / NEW_RANGE).
EXPLORE_MAX = 32


@dataclass(frozen=True)
class ExpectOptions:
    past: int
    new: int
    pad: int = 0
    pad_side: str = "left"
    causal: bool = True
    window: int | None = None
    chunk: int | None = None
    prefix: int | None = None
    documents: tuple[int, ...] | None = None
    tree: tuple[int, ...] | None = None

    def rule(self) -> Rule:
        if self.past < 0 or self.new < 1:
            raise MaskattnError("doctor_expect_sizes", past=self.past, new=self.new)
        if self.pad_side not in ("left", "right"):
            raise MaskattnError("doctor_pad_side", value=self.pad_side)
        return Rule(rows=self.new, keys=self.past + self.new, offset=self.past, causal=self.causal,
                    pad=self.pad, pad_side=self.pad_side, window=self.window, chunk=self.chunk,
                    prefix=self.prefix, documents=self.documents, tree=self.tree)

    def as_dict(self) -> dict:
        out = asdict(self)
        for name in ("documents", "tree"):
            if out[name] is not None:
                out[name] = list(out[name])
        return out


def _explorer_can(options: ExpectOptions) -> bool:
    return (options.window is options.chunk is options.prefix is options.documents is options.tree is None
            and options.past <= EXPLORE_MAX and 1 <= options.new <= EXPLORE_MAX)


def expected_allowed(options: ExpectOptions, rows: tuple[int, int] | None = None) -> np.ndarray:
    """The expected table (True = may read), new x (past + new); `rows`
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


def expect(mask: np.ndarray, options: ExpectOptions, polarity: str = "attend", name: str = "mask") -> Comparison:
    """Where `mask` (read True/1/0.0 = attend, or flipped) differs from the
    expected table; its shape must be new x (past + new)."""
    rows, keys = mask.shape
    if (options.new, options.past + options.new) != (rows, keys):
        raise MaskattnError("doctor_expect_shape", file=name, rows=rows, keys=keys, new=options.new,
                            past=options.past, want=options.past + options.new)
    reading = Reading(mask, classify(mask, name), polarity)
    return compare(reading, None, _Expected(options))  # row statistics unused: no intervals
