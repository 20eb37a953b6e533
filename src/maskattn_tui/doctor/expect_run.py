"""`doctor FILE --expect ...` and `doctor A --against B`: every slice of the
mask compared cell by cell (a 3-D / 4-D mask: each distinct (batch, head)
slice, or those --batch / --head choose), the differing cells named with
their slice, a small grid of the first differing slice (the user's table
beside the expected one, `!` on each difference), and a hint when every
cell is inverted (the mask looks like True = blocked).

Exit 0 when every cell of every slice matches, else 1."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.compare import Comparison
from maskattn_tui.doctor.representation import Reading, classify, used_as
from maskattn_tui.doctor.slices import distinct_slices, label
from maskattn_tui.i18n import t

#: The grid shows at most this many rows and keys around the first difference.
GRID_ROWS, GRID_KEYS = 16, 48


@dataclass(frozen=True)
class SliceResult:
    index: tuple[int, ...]  # () for a 2-D mask
    members: tuple
    comparison: Comparison
    extra: list  # cells visible that the expected table hides
    missing: list  # cells hidden that it shows
    inverted: bool  # every cell differs


def shown_hidden(reading: Reading, cells) -> tuple[list, list]:
    shown = [bool(reading.band(r, r + 1)[0, k]) for r, k in cells]
    return ([list(c) for c, s in zip(cells, shown) if s], [list(c) for c, s in zip(cells, shown) if not s])


def slices_of(array: np.ndarray, batch: int | None, head: int | None) -> list:
    """(index, members, 2-D slice) of each distinct slice chosen."""
    if array.ndim == 2:
        return [((), ((),), array)]
    groups, _ = distinct_slices(array, batch, head)
    return [(g.index, g.members, array[g.index]) for g in groups]


def compare_slices(array: np.ndarray, path: str, batch: int | None, head: int | None, want,
                   polarity: str, float_mask: str | None = None) -> list[SliceResult]:
    """Each distinct slice chosen against `want(index, slice_2d) -> Comparison`."""
    out = []
    for index, members, mask in slices_of(array, batch, head):
        result = want(index, mask)
        reading = Reading(mask, used_as(classify(mask, path), float_mask), polarity)
        extra, missing = shown_hidden(reading, result.cells)
        out.append(SliceResult(index, members, result, extra, missing, result.count == mask.size))
    return out


def _columns(text: str) -> int:
    """Terminal columns of a label (CJK characters take two)."""
    return sum(2 if ord(c) >= 0x2E80 else 1 for c in text)


def _grid(mask: np.ndarray, rep, polarity: str, wanted, comparison: Comparison, lang: str) -> list[str]:
    """The user's table and the expected one side by side, around the first
    differing cell: # visible, . hidden; ! where the user's differs."""
    rows, keys = mask.shape
    r, k = comparison.cells[0] if comparison.cells else (0, 0)
    r0 = max(0, min(r - 2, rows - GRID_ROWS))
    c0 = max(0, min(k - 8, keys - GRID_KEYS))
    r1, c1 = min(rows, r0 + GRID_ROWS), min(keys, c0 + GRID_KEYS)
    got = Reading(mask, rep, polarity).band(r0, r1)[:, c0:c1]
    want = wanted(r0, r1)[:, c0:c1]
    yours = np.where(got != want, "!", np.where(got, "#", "."))
    theirs = np.where(want, "#", ".")
    yours_label = t("doctor_slices.yours", lang)
    room = max(0, (c1 - c0) - _columns(yours_label))
    lines = [t("doctor_slices.grid", lang, r0=r0, r1=r1 - 1, c0=c0, c1=c1 - 1),
             f"        {yours_label}{' ' * room}  {t('doctor_slices.expected', lang)}"]
    for i in range(r1 - r0):
        lines.append(f"  q{r0 + i:<4} {''.join(yours[i])}  {''.join(theirs[i])}")
    return lines


def result_lines(results: list[SliceResult], path: str, what: str, total: int, lang: str) -> list[str]:
    """The failure report: the count, then per differing slice its cells."""
    from maskattn_tui.doctor.report import cells_text

    count = sum(r.comparison.count * len(r.members) for r in results)
    lines = [t("doctor.expect.differs", lang, file=path, count=f"{count:,}", total=f"{total:,}", options=what)]
    for r in results:
        if not r.comparison.count:
            continue
        if r.index:
            more = len(r.members) - 1
            lines.append(t("doctor_slices.differs", lang, slice=label(r.index, lang), count=r.comparison.count)
                         + (t("doctor_slices.equal", lang, n=more) if more else ""))
        if r.extra:
            lines.append(t("doctor.expect.extra", lang, cells=cells_text(r.extra, len(r.extra))))
        if r.missing:
            lines.append(t("doctor.expect.missing", lang, cells=cells_text(r.missing, len(r.missing))))
        if r.comparison.count > len(r.comparison.cells):
            lines.append(t("doctor.expect.more", lang, more=r.comparison.count - len(r.comparison.cells)))
        if r.inverted:
            lines.append(t("doctor_slices.inverted", lang))
    return lines


def first_grid(array: np.ndarray, path: str, results: list[SliceResult], polarity: str, wanted_of, lang: str,
               float_mask: str | None = None) -> list[str]:
    """The grid of the first slice that differs (`wanted_of(index)` gives
    its expected rows as a function of (r0, r1))."""
    for r in results:
        if r.comparison.count:
            mask = array[r.index] if r.index else array
            lines = [t("doctor_slices.grid_slice", lang, slice=label(r.index, lang))] if r.index else []
            rep = used_as(classify(mask, path), float_mask)
            return lines + _grid(mask, rep, polarity, wanted_of(r.index), r.comparison, lang)
    return []


def results_json(results: list[SliceResult]) -> list[dict]:
    return [{"index": list(r.index), "members": [list(m) for m in r.members], "differs_count": r.comparison.count,
             "differs": [list(c) for c in r.comparison.cells], "shown_but_hidden": r.extra,
             "hidden_but_shown": r.missing, "inverted": r.inverted} for r in results]
