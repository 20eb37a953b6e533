"""The chapter's experiments, each a pure function of an ExploreConfig that
returns a frozen result holding the tables, weights and outputs to show.

* `leak_probe`   - tell-tale V (9999) at future positions; the correct mask
  keeps the guarded rows' outputs unchanged, a broken mask does not.
* `offset_bug`   - queries placed at their batch row numbers (top-left, what
  torch's `is_causal` does when L != S) instead of absolute positions.
* `polarity_bug` - the True-means-attend table handed to an API that reads
  True as "blocked" (nn.MultiheadAttention): every cell inverted.
* `causal_off`   - the same inputs without the causal rule.
* window-off-by-one, positions-only, chunk-history: the mask patterns'
  classic mistakes (explore.pattern_experiments).

The leak probe and the offset bug are about a causal mask, so their
"correct" table is the causal one even when the configuration has the rule
switched off; the polarity bug inverts the configured table."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from maskattn_tui.engine.attention import AttentionResult
from maskattn_tui.errors import MaskattnError
from maskattn_tui.engine.matrices import Matrix
from maskattn_tui.engine.visibility import Cell, VisibilityTable, row_number_table

from maskattn_tui.explore.config import ExploreConfig, apply_v
from maskattn_tui.explore.view import evaluate

#: Outputs closer than this, relative to the size of the values compared,
#: count as unchanged: 128 rounding steps. An output (weights x V, the
#: weights summing to 1) computed in float64 is off by at most ~10 steps of
#: the largest |V| (1 step is 1.8e-12 near 9999), while a real change can be
#: as small as 1e-13 of it (a key of weight 1e-13 at T = 0.1): checked
#: against the exact values computed with 60-digit decimals.
TOLERANCE = 128 * sys.float_info.epsilon
#: The tell-tale value of the leak probe (the chapter's 30 -> 9999).
PROBE_VALUE = 9999.0
#: What a leak probe may compare the correct mask with.
BROKEN_MASKS = ("causal-off", "offset")
#: All experiment names, e.g. for toggles.
EXPERIMENTS = ("leak-probe", "offset-bug", "polarity-bug", "causal-off",
               "window-off-by-one", "positions-only", "chunk-history")

Cells = tuple[tuple[int, int], ...]  # (query row, key position) pairs
BoolTable = tuple[tuple[bool, ...], ...]


def row_delta(a: Sequence[float] | None, b: Sequence[float] | None, scale: float = 0.0) -> float:
    """Largest |a - b| over one output row, or 0.0 when every difference is
    rounding: at most TOLERANCE times the size of the values compared (the
    larger of |x|, |y| and `scale`, the largest |V| the outputs average -
    an output near 0 can be a sum of large terms). A refused row (None)
    equals only a refused row; NaN equals only NaN (same policy, same
    answer); anything else against None or NaN is infinitely different."""
    if a is None or b is None:
        return 0.0 if a is None and b is None else math.inf
    worst = 0.0
    for x, y in zip(a, b):
        if math.isnan(x) or math.isnan(y):
            if not (math.isnan(x) and math.isnan(y)):
                return math.inf
            continue
        if abs(x - y) > TOLERANCE * max(abs(x), abs(y), scale):
            worst = max(worst, abs(x - y))
    return worst


def _scale(*matrices: Matrix) -> float:
    """The largest |value| in the V matrices the outputs average."""
    return max((abs(x) for m in matrices for row in m for x in row), default=0.0)


def output_deltas(a: AttentionResult, b: AttentionResult, scale: float = 0.0) -> tuple[float, ...]:
    return tuple(row_delta(x, y, scale) for x, y in zip(a.outputs, b.outputs))


def _cells(table: BoolTable) -> Cells:
    return tuple((r, c) for r, row in enumerate(table) for c, x in enumerate(row) if x)


def _differs(a: BoolTable, b: BoolTable) -> BoolTable:
    return tuple(tuple(x != y for x, y in zip(ra, rb)) for ra, rb in zip(a, b))


def _only_in(a: BoolTable, b: BoolTable) -> Cells:
    """Cells allowed in `a` but not in `b`."""
    return _cells(tuple(tuple(x and not y for x, y in zip(ra, rb)) for ra, rb in zip(a, b)))


# --- leak probe ---------------------------------------------------------------


@dataclass(frozen=True)
class LeakProbeResult:
    broken: str  # "causal-off" or "offset"
    value: float
    probe_keys: tuple[int, ...]  # key positions whose V was set to `value`
    v: Matrix  # V before the probe
    v_probe: Matrix  # V with the tell-tale values
    correct: VisibilityTable  # the causal table at absolute positions
    broken_table: VisibilityTable
    correct_before: AttentionResult  # correct mask, original V
    correct_after: AttentionResult  # correct mask, probed V
    broken_before: AttentionResult  # broken mask, original V
    broken_after: AttentionResult  # broken mask, probed V
    #: rows whose correct table hides every probed key: their outputs must not move
    guarded_rows: tuple[int, ...]
    correct_change: tuple[float, ...]  # per row: |correct_after - correct_before|
    broken_change: tuple[float, ...]  # per row: |broken_after - broken_before|
    broken_vs_correct: tuple[float, ...]  # per row: |broken_after - correct_after|

    @property
    def correct_unchanged(self) -> bool:
        """The claim: with the correct mask no guarded row's output moves.
        False only under the "uniform" empty-row policy (see empty_leak_rows)."""
        return all(self.correct_change[r] <= TOLERANCE for r in self.guarded_rows)

    @property
    def empty_leak_rows(self) -> tuple[int, ...]:
        """Guarded rows with no visible key whose output moves even with the
        correct mask: the "uniform" policy (what a finite big negative gives)
        averages over every key, forbidden ones included - a silent leak."""
        return tuple(
            r for r in self.guarded_rows
            if r in self.correct.empty_rows and self.correct_change[r] > TOLERANCE
        )

    @property
    def leak_rows(self) -> tuple[int, ...]:
        """Guarded rows whose output moves under the broken mask when only
        the future values change: the future leaks into them."""
        return tuple(r for r in self.guarded_rows if self.broken_change[r] > TOLERANCE)

    @property
    def expected_rows(self) -> tuple[int, ...]:
        """Rows whose correct table reads a probed key: their outputs are
        meant to move (no sign of a leak) - under the broken mask only
        where it ends where the correct one does (not in changed_rows)."""
        return tuple(r for r in range(len(self.correct.query_positions)) if r not in self.guarded_rows)

    def change_expected(self, mask: str, row: int) -> bool:
        """Is a change of this row's output under `mask` ("correct" /
        "broken") what the probe means to cause, not an alarm?"""
        return row in self.expected_rows and (mask == "correct" or row not in self.changed_rows)

    @property
    def changed_rows(self) -> tuple[int, ...]:
        """Rows whose broken-mask output differs from the correct one."""
        return tuple(r for r, d in enumerate(self.broken_vs_correct) if d > TOLERANCE)


def leak_probe(
    config: ExploreConfig,
    broken: str = "causal-off",
    value: float = PROBE_VALUE,
    keys: Sequence[int] | None = None,
) -> LeakProbeResult:
    """Set V at `keys` (default: every position after the first new query,
    `config.future_keys`) to `value`, and compare the correct causal mask
    with a broken one (`broken`: "causal-off" or "offset").

    With new = 1 there is no future inside the batch and `probe_keys` is
    empty: nothing can leak, and the result says so."""
    if broken not in BROKEN_MASKS:
        raise ValueError(f"broken must be one of {BROKEN_MASKS}, not {broken!r}")
    probe_keys = tuple(config.future_keys if keys is None else sorted(set(keys)))
    _, _, v = config.inputs()
    v_probe = apply_v(v, [(j, value) for j in probe_keys])
    correct = config.table(causal=True)
    broken_table = config.table(causal=False) if broken == "causal-off" else row_number_table(correct)
    ok, bad = correct.allowed, broken_table.allowed
    correct_before = evaluate(config, ok, v)
    correct_after = evaluate(config, ok, v_probe)
    broken_before = evaluate(config, bad, v)
    broken_after = evaluate(config, bad, v_probe)
    guarded = tuple(r for r, row in enumerate(ok) if not any(row[j] for j in probe_keys))
    scale = _scale(v, v_probe)
    return LeakProbeResult(
        broken=broken,
        value=float(value),
        probe_keys=probe_keys,
        v=v,
        v_probe=v_probe,
        correct=correct,
        broken_table=broken_table,
        correct_before=correct_before,
        correct_after=correct_after,
        broken_before=broken_before,
        broken_after=broken_after,
        guarded_rows=guarded,
        correct_change=output_deltas(correct_after, correct_before, scale),
        broken_change=output_deltas(broken_after, broken_before, scale),
        broken_vs_correct=output_deltas(broken_after, correct_after, scale),
    )


# --- offset bug ---------------------------------------------------------------


@dataclass(frozen=True)
class OffsetBugResult:
    correct: VisibilityTable  # queries at past + row (bottom-right)
    wrong: VisibilityTable  # queries at their row number (top-left)
    differs: BoolTable  # per cell: do the two tables disagree?
    hidden: Cells  # allowed by the correct table, blocked by the wrong one: history hidden
    exposed: Cells  # blocked by the correct table, allowed by the wrong one
    #: per exposed cell, the rules that block it in the correct table ("future",
    #: "window", "chunk", "window+chunk"...): the wrong queries sit earlier, so
    #: what they expose is mostly earlier keys another rule hides, not the future
    exposed_by: tuple[str, ...]
    correct_result: AttentionResult
    wrong_result: AttentionResult
    output_change: tuple[float, ...]  # per row: |wrong - correct|

    @property
    def differing_cells(self) -> Cells:
        return _cells(self.differs)


def offset_bug(config: ExploreConfig) -> OffsetBugResult:
    """The causal table from absolute positions against the one built from
    batch row numbers. With past = 0 they agree; with a cache the wrong one
    hides history (q at past + r sees only keys <= r)."""
    correct = config.table(causal=True)
    wrong = row_number_table(correct)
    correct_result = evaluate(config, correct.allowed)
    wrong_result = evaluate(config, wrong.allowed)
    exposed = _only_in(wrong.allowed, correct.allowed)
    return OffsetBugResult(
        correct=correct,
        wrong=wrong,
        differs=_differs(correct.allowed, wrong.allowed),
        hidden=_only_in(correct.allowed, wrong.allowed),
        exposed=exposed,
        exposed_by=tuple(correct.cells[r][c].value for r, c in exposed),
        correct_result=correct_result,
        wrong_result=wrong_result,
        output_change=output_deltas(wrong_result, correct_result, _scale(config.inputs()[2])),
    )


# --- polarity bug -------------------------------------------------------------


@dataclass(frozen=True)
class PolarityBugResult:
    intended: VisibilityTable  # True = may read (SDPA / HF / JAX polarity)
    effective: BoolTable  # what an API reading True as "blocked" lets through
    future_visible: Cells  # cells blocked as future (or future+PAD) that became visible
    pad_visible: Cells  # cells blocked as PAD (or future+PAD) that became visible
    hidden: Cells  # cells meant to be visible that became blocked (the past, the self)
    empty_rows: tuple[int, ...]  # rows left with no visible key after inversion
    correct_result: AttentionResult
    inverted_result: AttentionResult
    output_change: tuple[float, ...]


def polarity_bug(config: ExploreConfig) -> PolarityBugResult:
    """Hand the configured table (True = attend) to nn.MultiheadAttention,
    which reads True as "blocked": the API attends exactly where we meant
    to block."""
    table = config.table()
    effective = tuple(tuple(not c.allowed for c in row) for row in table.cells)
    cells = [(r, c, cell) for r, row in enumerate(table.cells) for c, cell in enumerate(row)]
    correct_result = evaluate(config, table.allowed)
    inverted_result = evaluate(config, effective)
    return PolarityBugResult(
        intended=table,
        effective=effective,
        future_visible=tuple((r, c) for r, c, x in cells if x in (Cell.FUTURE, Cell.FUTURE_PAD)),
        pad_visible=tuple((r, c) for r, c, x in cells if x in (Cell.PAD, Cell.FUTURE_PAD)),
        hidden=tuple((r, c) for r, c, x in cells if x is Cell.ALLOWED),
        empty_rows=tuple(r for r, row in enumerate(effective) if not any(row)),
        correct_result=correct_result,
        inverted_result=inverted_result,
        output_change=output_deltas(inverted_result, correct_result, _scale(config.inputs()[2])),
    )


# --- causal off ---------------------------------------------------------------


@dataclass(frozen=True)
class CausalOffResult:
    causal: VisibilityTable
    off: VisibilityTable  # every valid (non-PAD) key visible to every query
    newly_visible: Cells  # the future, now readable
    causal_result: AttentionResult
    off_result: AttentionResult
    output_change: tuple[float, ...]


def causal_off(config: ExploreConfig) -> CausalOffResult:
    """The same inputs with and without the causal rule (PAD stays blocked)."""
    on, off = config.table(causal=True), config.table(causal=False)
    causal_result = evaluate(config, on.allowed)
    off_result = evaluate(config, off.allowed)
    return CausalOffResult(
        causal=on,
        off=off,
        newly_visible=_only_in(off.allowed, on.allowed),
        causal_result=causal_result,
        off_result=off_result,
        output_change=output_deltas(off_result, causal_result, _scale(config.inputs()[2])),
    )


# --- by name, and as plain data -------------------------------------------------

#: (and explore.pattern_experiments.TableMistake for the pattern experiments)
ExperimentResult = LeakProbeResult | OffsetBugResult | PolarityBugResult | CausalOffResult


def parse_experiment_names(value: str | Sequence[str]) -> tuple[str, ...]:
    """"all", one name, or several separated by commas -> names in
    EXPERIMENTS order. Unknown names raise MaskattnError."""
    parts = value.split(",") if isinstance(value, str) else list(value)
    names = [p.strip() for p in parts if p.strip()]
    choices = ", ".join((*EXPERIMENTS, "all"))
    if not names:
        raise MaskattnError("explore_experiment", field="experiment", value=value, choices=choices)
    for name in names:
        if name != "all" and name not in EXPERIMENTS:
            raise MaskattnError("explore_experiment", field="experiment", value=name, choices=choices)
    if "all" in names:
        return EXPERIMENTS
    return tuple(n for n in EXPERIMENTS if n in names)
