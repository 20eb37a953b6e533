"""Everything one screen shows, computed once from a StepSpec: the table,
the attention numbers, and the step's extras (the numeric comparison of
step 4, the offset mistake of step 5). Renderers and JSON only read this."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from maskattn_tui.engine.attention import AttentionResult, attend
from maskattn_tui.i18n import pick
from maskattn_tui.engine.matrices import mix
from maskattn_tui.lesson.f12 import StepSpec
from maskattn_tui.engine.softmax import stable_softmax
from maskattn_tui.engine.visibility import VisibilityTable, build_table, row_number_table

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Compare:
    """One score row with and without the mask (step 4)."""

    row: int
    scores: tuple[float, ...]
    additive: tuple[float, ...]  # 0 / -inf
    exp_unmasked: tuple[float, ...]
    exp_masked: tuple[float, ...]  # exp(score + additive): exactly 0 where -inf
    denominator_unmasked: float
    denominator_masked: float
    weights_unmasked: tuple[float, ...]
    weights_masked: tuple[float, ...]
    output_unmasked: tuple[float, ...]
    output_masked: tuple[float, ...]


@dataclass(frozen=True)
class OffsetBug:
    """The same keys read with queries placed at their batch row numbers
    (top-left alignment) instead of their absolute positions (step 5)."""

    table: VisibilityTable
    differs: tuple[tuple[bool, ...], ...]
    result: AttentionResult


@dataclass(frozen=True)
class StepView:
    spec: StepSpec
    steps: int
    table: VisibilityTable
    result: AttentionResult
    compare: Compare | None = None
    offset_bug: OffsetBug | None = None

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        """The fields' hash, computed once per view: the figure finds a view's
        table source by value (render.figure_lines.source_of) at every row
        move, and hashing a view walks its tables and weights (32 x 64
        cells each time at 32 + 32)."""
        return hash((self.spec, self.steps, self.table, self.result, self.compare, self.offset_bug))

    @property
    def step(self) -> int:
        return self.spec.step

    @property
    def reasons(self) -> tuple[tuple[tuple[str, ...], ...], ...]:
        """Per cell of the table: the rules that block it, in the order
        future, pad, window, chunk, document, tree (() = allowed). The
        same as each cell's "+"-joined value, as data for a grid."""
        return self.table.reasons

    @property
    def query_position_ids(self) -> tuple[int, ...]:
        """The positions a rotary embedding uses for the queries."""
        return self.table.query_position_ids  # type: ignore[return-value]

    @property
    def key_position_ids(self) -> tuple[int, ...]:
        return self.table.key_position_ids  # type: ignore[return-value]

    def text(self, name: str, lang: str) -> str:
        return pick(getattr(self.spec, name), lang)


def _compare(spec: StepSpec, table: VisibilityTable, result: AttentionResult) -> Compare:
    row = spec.focus_rows[0]
    scores = result.scores[row]
    t = result.temperature
    additive = table.additive()[row]
    exp_unmasked = tuple(math.exp(s / t) for s in scores)
    exp_masked = tuple(math.exp((s + a) / t) for s, a in zip(scores, additive))
    weights_unmasked = tuple(stable_softmax(scores, t))
    weights_masked = result.weights[row]
    return Compare(
        row=row,
        scores=scores,
        additive=additive,
        exp_unmasked=exp_unmasked,
        exp_masked=exp_masked,
        denominator_unmasked=math.fsum(exp_unmasked),
        denominator_masked=math.fsum(exp_masked),
        weights_unmasked=weights_unmasked,
        weights_masked=weights_masked,
        output_unmasked=mix(weights_unmasked, result.v),
        output_masked=result.outputs[row],
    )


def build_view(spec: StepSpec, steps: int) -> StepView:
    table = build_table(spec.query_positions, spec.key_positions, spec.key_is_pad, spec.causal)
    result = attend(spec.q, spec.k, spec.v, table, spec.temperature, spec.empty_row_policy, strict=False)
    compare = _compare(spec, table, result) if spec.kind == "compare" else None
    offset_bug = None
    if spec.kind == "cache":
        wrong = row_number_table(table)
        wrong_result = attend(
            spec.q, spec.k, spec.v, wrong, spec.temperature, spec.empty_row_policy, strict=False
        )
        offset_bug = OffsetBug(wrong, table.differs_from(wrong), wrong_result)
    return StepView(spec, steps, table, result, compare, offset_bug)
