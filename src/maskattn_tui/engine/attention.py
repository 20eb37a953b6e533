"""Scaled dot-product attention over a visibility table."""

from __future__ import annotations

from dataclasses import dataclass

from maskattn_tui.errors import EmptyRowError, MaskattnError
from maskattn_tui.engine.matrices import Matrix, mix, scaled_scores, validate_qkv
from maskattn_tui.engine.softmax import check_policy, check_temperature, masked_softmax
from maskattn_tui.engine.visibility import VisibilityTable

Row = tuple[float, ...]


@dataclass(frozen=True)
class AttentionResult:
    q: Matrix
    k: Matrix
    v: Matrix
    scale: float
    scores: Matrix  # scaled, before masking and before the temperature
    weights: tuple[Row | None, ...]  # None: the row was refused (policy "error")
    outputs: tuple[Row | None, ...]
    empty_rows: tuple[int, ...]
    temperature: float
    policy: str


def attend(
    q,
    k,
    v,
    table: VisibilityTable,
    temperature: float = 1.0,
    policy: str = "error",
    strict: bool = True,
) -> AttentionResult:
    """weights = masked softmax(q.k / sqrt(d) / T), outputs = weights x V.

    Under policy "error" an empty row raises EmptyRowError when `strict`;
    with strict=False it is reported as None (how JSON shows a refusal)."""
    q, k, v = validate_qkv(q, k, v)
    temperature = check_temperature(temperature)
    check_policy(policy)
    if len(table.cells) != len(q) or len(table.key_positions) != len(k):
        raise MaskattnError(
            "table_shape", rows=len(table.cells), cols=len(table.key_positions), nq=len(q), nk=len(k)
        )
    scores, scale = scaled_scores(q, k)
    allowed = table.allowed
    weights: list[Row | None] = []
    outputs: list[Row | None] = []
    for i, row in enumerate(scores):
        try:
            w = tuple(masked_softmax(row, allowed[i], temperature, policy))
        except EmptyRowError:
            if strict:
                raise EmptyRowError("row_refused", row=i, position=table.query_positions[i]) from None
            weights.append(None)
            outputs.append(None)
            continue
        weights.append(w)
        outputs.append(mix(w, v))
    return AttentionResult(
        q, k, v, scale, scores, tuple(weights), tuple(outputs), table.empty_rows, temperature, policy
    )
