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
    return attend_scores(
        q, k, v, scores, scale, table.allowed, temperature, policy,
        strict=strict, query_positions=table.query_positions,
    )


def attend_scores(
    q: Matrix,
    k: Matrix,
    v: Matrix,
    scores: Matrix,
    scale: float,
    allowed,
    temperature: float,
    policy: str,
    strict: bool = False,
    query_positions=None,
) -> AttentionResult:
    """The one attention loop: masked softmax(scores / T) row by row over
    `allowed` (True = may read), outputs = weights x V.

    `scores` are already scaled; callers that set scores directly (the
    explorer's score overrides) pass them here instead of going through
    `attend`. Under policy "error" an empty row raises EmptyRowError when
    `strict` (naming its position from `query_positions`), else is None."""
    weights: list[Row | None] = []
    outputs: list[Row | None] = []
    for i, (row, mask) in enumerate(zip(scores, allowed)):
        try:
            w = tuple(masked_softmax(row, mask, temperature, policy))
        except EmptyRowError:
            if strict:
                position = query_positions[i] if query_positions is not None else i
                raise EmptyRowError("row_refused", row=i, position=position) from None
            weights.append(None)
            outputs.append(None)
            continue
        weights.append(w)
        outputs.append(mix(w, v))
    empty = tuple(i for i, mask in enumerate(allowed) if not any(mask))
    return AttentionResult(
        q, k, v, scale, scores, tuple(weights), tuple(outputs), empty, temperature, policy
    )
