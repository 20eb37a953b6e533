"""A Hugging Face pair without a file: the 2-D `attention_mask` (1 = real
token, 0 = padding; length past + new), optional `position_ids` and the
cache length. The table is rebuilt with HF's rules (masking_utils): query
row r is position past + r and sees key k when k <= past + r and
attention_mask[k] == 1 (bottom-right, PAD keys hidden). The result is the
bool table of HF's sdpa path (True = attend).

Positions are checked against what `generate` computes: real tokens at
``cumsum(attention_mask) - 1``. PAD positions may hold anything (HF fills
them with a constant: 1 in older code, 0 in newer), so only real tokens are
compared. With left padding, `arange` positions are shifted by the number
of pads before the token: finding `positions-shifted`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.compare import CELL_LIMIT
from maskattn_tui.doctor.diagnosis import Finding
from maskattn_tui.doctor.read import MaskInfo
from maskattn_tui.errors import MaskattnError


@dataclass(frozen=True)
class HFPair:
    table: np.ndarray  # (new, past + new) bool, True = attend
    info: MaskInfo
    findings: tuple[Finding, ...]
    expected_positions: tuple[int, ...]  # per new token (pads: None -> -1)


def hf_pair(attention_mask: list[int], position_ids: list[int] | None = None, past: int | None = None) -> HFPair:
    am = np.asarray(attention_mask, dtype=np.int64)
    keys = am.size
    if keys == 0:
        raise MaskattnError("doctor_hf_empty")
    if not np.isin(am, (0, 1)).all():
        raise MaskattnError("doctor_hf_values")
    past = past or 0
    if not 0 <= past < keys:
        raise MaskattnError("doctor_hf_past", past=past, keys=keys)
    rows = keys - past
    p = np.arange(rows)[:, None] + past
    k = np.arange(keys)[None, :]
    table = (k <= p) & (am[None, :] == 1)
    real = am == 1
    expected = np.where(real, np.cumsum(am) - 1, -1)
    shown = ["-" if x < 0 else str(int(x)) for x in expected[past:][:CELL_LIMIT]]
    findings = [Finding("hf-positions", "info", params={
        "positions": ",".join(shown) + (",..." if rows > CELL_LIMIT else "")})]
    if am[-1] == 0:
        findings.append(Finding("right-padding", "warning", count=int(keys - 1 - np.flatnonzero(real)[-1])
                                if real.any() else keys))
    if position_ids is not None:
        findings.extend(_positions(np.asarray(position_ids, dtype=np.int64), expected, real, past))
    info = MaskInfo("attention_mask", "hf-pair", (1, keys), "int64", None, None, None)
    return HFPair(table, info, tuple(findings), tuple(int(x) for x in expected[past:]))


def _positions(given: np.ndarray, expected: np.ndarray, real: np.ndarray, past: int) -> list[Finding]:
    keys = expected.size
    if given.size == keys - past:  # one position per new token (HF's usual)
        first = past
    elif given.size == keys:
        first = 0
    else:
        raise MaskattnError("doctor_hf_positions_length", got=given.size, new=keys - past, keys=keys)
    want, is_real = expected[first:], real[first:]
    tokens = np.arange(first, keys)
    wrong = np.flatnonzero(is_real & (given != want))
    if wrong.size == 0:
        return []
    cells = tuple((int(tokens[i]), int(given[i]), int(want[i])) for i in wrong[:CELL_LIMIT])
    pads_before = np.cumsum(~real)[first:]
    shifted = np.all((given - want)[is_real] == pads_before[is_real]) and pads_before[is_real].max() > 0
    if shifted:
        return [Finding("positions-shifted", "error", cells, int(wrong.size),
                        {"shift": int(pads_before[is_real].max())})]
    return [Finding("positions-mismatch", "error", cells, int(wrong.size))]
