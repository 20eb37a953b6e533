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
from maskattn_tui.doctor.findings import Finding
from maskattn_tui.doctor.read import MaskInfo
from maskattn_tui.errors import MaskattnError


#: The table is built dense for the doctor: at most this many cells (256 MB).
CELLS_MOST = 1 << 28
BAND_CELLS = 1 << 22


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
    if rows * keys > CELLS_MOST:
        raise MaskattnError("doctor_hf_too_large", keys=keys, past=past, rows=rows, cells=f"{rows * keys:,}",
                            limit=f"{CELLS_MOST:,}", hint=max(past, keys - CELLS_MOST // keys))
    table = _table(am, past)
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


def _table(am: np.ndarray, past: int) -> np.ndarray:
    """Row r sees key k when k <= past + r and am[k] == 1: built a band of
    rows at a time into one bool array (no int64 or second full-size temporary)."""
    keys = am.size
    rows = keys - past
    table = np.empty((rows, keys), dtype=bool)
    real = am == 1
    k = np.arange(keys)
    step = max(1, BAND_CELLS // keys)
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        np.less_equal(k[None, :], np.arange(r0, r1)[:, None] + past, out=table[r0:r1])
        table[r0:r1] &= real
    return table


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
