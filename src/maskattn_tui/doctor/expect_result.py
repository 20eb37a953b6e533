"""One --expect result and its JSON, for every doctor command that checks
a mask against a stated table: `doctor FILE --expect` (cli.doctor),
`doctor DIR --expect` (capture.doctor), `doctor FILE.py:NAME --expect`
(scale.doctor_run) and `doctor FILE --config` (doctor.intent_run, which
names what it compared `intent` rather than `expected`). docs/json.md
describes the fields once."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExpectResult:
    #: what was compared against, as JSON (ExpectOptions.as_dict), or None
    #: when the caller names it itself (--config: `intent`)
    expected: dict | None
    #: cells that differ, over every slice compared (a slice counted once per member)
    count: int
    #: [row, key] of the first cells that differ (of the first slice that differs)
    cells: tuple = ()
    #: of those: visible in the mask but hidden by the expected table, and the other way
    shown_but_hidden: tuple = ()
    hidden_but_shown: tuple = ()

    @property
    def match(self) -> bool:
        return self.count == 0

    @classmethod
    def of_slices(cls, expected: dict | None, results, count: int | None = None) -> "ExpectResult":
        """From doctor.expect_run's SliceResults: the first slice that
        differs shows its cells; `count` overrides the members' sum."""
        if not results:
            return cls(expected, count or 0)
        first = next((r for r in results if r.comparison.count), results[0])
        total = sum(r.comparison.count * len(r.members) for r in results) if count is None else count
        return cls(expected, total, tuple(tuple(c) for c in first.comparison.cells),
                   tuple(map(tuple, first.extra)), tuple(map(tuple, first.missing)))

    def as_json(self) -> dict:
        out = {} if self.expected is None else {"expected": self.expected}
        out.update(match=self.match, differs_count=self.count, differs=[list(c) for c in self.cells],
                   shown_but_hidden=[list(c) for c in self.shown_but_hidden],
                   hidden_but_shown=[list(c) for c in self.hidden_but_shown])
        return out
