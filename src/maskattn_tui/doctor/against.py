"""`doctor A --against B`: where two saved masks differ, cell by cell.

Both are read as visible / hidden under their own representation (bool
True, 1, or an additive 0 = visible; --polarity blocked flips both), so a
bool mask and the additive one built from it compare equal. Same stored
shape required; every slice chosen is compared (--batch / --head narrow
it). Exit 0 when equal, 1 when some cell differs."""

from __future__ import annotations

import numpy as np

from maskattn_tui.doctor.compare import CELL_LIMIT, Comparison
from maskattn_tui.doctor.expect_run import SliceResult, shown_hidden, first_grid, result_lines, results_json
from maskattn_tui.doctor.representation import Reading, classify, used_as
from maskattn_tui.doctor.slices import load_all, slice_indexes
from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t


def differ(a: Reading, b: Reading, limit: int = CELL_LIMIT) -> Comparison:
    """Cells where two readings of the same shape differ (row-major)."""
    count, cells = 0, []
    for r0, r1, band in a.bands():
        diff = band != b.band(r0, r1)
        n = int(np.count_nonzero(diff))
        if n and len(cells) < limit:
            rows, keys = np.nonzero(diff)
            cells.extend((int(r) + r0, int(k)) for r, k in zip(rows[: limit - len(cells)], keys[: limit - len(cells)]))
        count += n
    return Comparison(count, tuple(cells), 0, ())


def run_against(array: np.ndarray, info, args, lang: str, write) -> int:
    from maskattn_tui.doctor import report

    other, _, other_info = load_all(args.against, args.batch, args.head, None)
    if tuple(other.shape) != tuple(array.shape):
        raise MaskattnError("doctor_against_shape", file=info.path, other=other_info.path,
                            shape="x".join(map(str, array.shape)), other_shape="x".join(map(str, other.shape)))
    polarity = args.polarity or "attend"
    indexes = [()] if array.ndim == 2 else slice_indexes(tuple(array.shape), args.batch, args.head)
    results, readings = [], {}
    for index in indexes:
        a2, b2 = (array, other) if not index else (array[index], other[index])
        ra = Reading(a2, used_as(classify(a2, info.path), args.float_mask), polarity)
        rb = Reading(b2, used_as(classify(b2, other_info.path), args.float_mask), polarity)
        comparison = differ(ra, rb)
        extra, missing = shown_hidden(ra, comparison.cells)
        results.append(SliceResult(index, (index,), comparison, extra, missing, comparison.count == a2.size))
        if comparison.count and len(readings) < 1:
            readings[index] = rb
    count = sum(r.comparison.count for r in results)
    rows, keys = array.shape[-2:]
    what = t("doctor_slices.against", lang, other=other_info.path)
    if args.json:
        write(report.dumps({"schema": "maskattn-doctor-against/1", "file": info.path, "against": other_info.path,
                            "stored_shape": list(array.shape), "polarity": polarity, "match": count == 0,
                            "differs_count": count, "slices": results_json([r for r in results if r.comparison.count])}))
    elif count == 0:
        write(t("doctor_slices.same", lang, file=info.path, other=other_info.path, shape="x".join(map(str, array.shape))))
    else:
        lines = result_lines(results, info.path, what, rows * keys * len(results), lang)
        lines += first_grid(array, info.path, results, polarity,
                            lambda index: (lambda r0, r1: readings[index].band(r0, r1)), lang, args.float_mask)
        write("\n".join(lines))
    return 0 if count == 0 else 1
