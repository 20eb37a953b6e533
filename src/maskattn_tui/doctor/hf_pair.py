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
of pads before the token: finding `positions-shifted`.

Position ids that restart at 0 mean packed documents (several sequences in
one row), not wrong positions: finding `packed-positions` says where they
restart and whether the table keeps the documents apart. With an
attention_mask (or a cache) transformers 5.24 builds the plain causal table
and the documents see each other; it finds the documents in position_ids
(find_packed_sequence_indices) only when neither is given."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.compare import CELL_LIMIT
from maskattn_tui.doctor.findings import Finding
from maskattn_tui.doctor.read import MaskInfo
from maskattn_tui.errors import MaskattnError
from maskattn_tui.intent.table import LayerIntent, intended_table


#: The table is built dense for the doctor: at most this many cells (256 MB).
CELLS_MOST = 1 << 28
BAND_CELLS = 1 << 22


@dataclass(frozen=True)
class HFPair:
    table: np.ndarray  # (new, past + new) bool, True = attend
    info: MaskInfo
    findings: tuple[Finding, ...]
    expected_positions: tuple[int, ...]  # per new token (pads: None -> -1)
    documents: tuple[tuple[int, int], ...] | None = None  # packed documents (first, last token), if read


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
    documents = None
    if position_ids is not None:
        given = np.asarray(position_ids, dtype=np.int64)
        documents = _documents(given, real, past)
        if documents is None:
            findings.extend(_positions(given, expected, real, past))
        else:
            findings.append(_packed(table, documents, given, past))
    info = MaskInfo("attention_mask", "hf-pair", (1, keys), "int64", None, None, None)
    return HFPair(table, info, tuple(findings), tuple(int(x) for x in expected[past:]), documents)


def _documents(given: np.ndarray, real: np.ndarray, past: int) -> tuple[tuple[int, int], ...] | None:
    """The packed documents the position ids state, as (first, last) token:
    over the real tokens, a new document wherever the id does not grow by 1
    (find_packed_sequence_indices' rule), each numbered from 0. None when
    there is one document, or a piece does not start at 0 (then the ids are
    not a packing and the positions check stands)."""
    keys = real.size
    first = past if given.size == keys - past else 0
    if given.size not in (keys - past, keys):
        raise MaskattnError("doctor_hf_positions_length", got=given.size, new=keys - past, keys=keys)
    tokens = np.arange(first, keys)[real[first:]]
    ids = given[real[first:]]
    if ids.size < 2:
        return None
    starts = np.concatenate(([0], np.flatnonzero(np.diff(ids) != 1) + 1))
    if starts.size < 2 or (ids[starts] != 0).any():
        return None
    ends = np.concatenate((starts[1:] - 1, [ids.size - 1]))
    return tuple((int(tokens[a]), int(tokens[b])) for a, b in zip(starts, ends))


def _packed(table: np.ndarray, documents, given: np.ndarray, past: int) -> Finding:
    """Whether the table keeps the documents apart, and the cells where one
    document sees another (rows are tokens past..)."""
    doc = np.full(past + table.shape[0], -1)
    for i, (a, b) in enumerate(documents):
        doc[a:b + 1] = i
    rows_doc = doc[past:]
    across = table & (rows_doc[:, None] != doc[None, :]) & (rows_doc[:, None] >= 0) & (doc[None, :] >= 0)
    cells = tuple((int(r), int(k)) for r, k in zip(*np.nonzero(across)))
    starts = ",".join(str(a) for a, _ in documents[1:])
    docs = " ".join(f"[{a}-{b}]" for a, b in documents)
    if not cells:
        return Finding("packed-positions", "info", params={"variant": "apart", "starts": starts, "docs": docs})
    params = {"starts": starts, "docs": docs, "block": _block_text(given, table.shape[1], past)}
    if past:  # a cache: transformers never reads documents from position ids then
        params["variant"] = "cache"
    return Finding("packed-positions", "warning", cells[:CELL_LIMIT], len(cells), params)


def _block_text(given: np.ndarray, keys: int, past: int) -> str:
    """The rows of the block-diagonal table transformers builds from these
    position ids when it gets no attention_mask and no cache."""
    if past or given.size != keys:
        return ""
    ids = np.arange(keys)
    table = intended_table(LayerIntent("causal"), ids, ids, position_ids=given)
    return " ".join("".join("#" if v else "." for v in row) for row in table[:CELL_LIMIT])


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
