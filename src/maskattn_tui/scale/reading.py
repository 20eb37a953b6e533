"""The doctor's reading of a mask_mod, from one scan of its tiles.

The row statistics (first / last visible key and count per row) are what
the doctor reads a saved mask by: its own candidates and scoring
(doctor.readings) are used unchanged, compared with the mask_mod by
arithmetic on rows that are one run of keys; only rows that are not are
evaluated again, in bands. Readings that score as well as the best are all
kept: when two readings fit, the report says both."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.compare import Comparison, compare
from maskattn_tui.doctor.diagnosis import alignment_name
from maskattn_tui.doctor.readings import Scored, best_readings
from maskattn_tui.doctor.representation import BAND_CELLS, band_rows
from maskattn_tui.doctor.rows import RowStats
from maskattn_tui.scale.mask_mod import Evaluator

#: Cells the fit may re-read: rows that are not one run are read again for
#: each candidate compared (about REREAD_PASSES of them).
REREAD_CELLS = 1 << 30
REREAD_PASSES = 8


class ModReading:
    """A mask_mod read as doctor.representation.Reading reads a saved mask
    (True = may read), one band of rows at a time."""

    polarity = "attend"

    def __init__(self, ev: Evaluator, rows: int, keys: int) -> None:
        self.ev, self.rows, self.keys = ev, rows, keys
        self._width = max(1, BAND_CELLS // 4 // max(1, min(rows, band_rows(rows, keys))))

    def _rows(self, r0: int, r1: int) -> np.ndarray:
        parts = [self.ev.tile(r0, r1, k0, min(self.keys, k0 + self._width))
                 for k0 in range(0, self.keys, self._width)]
        return np.concatenate(parts, axis=1) if len(parts) > 1 else np.array(parts[0])

    def band(self, r0: int, r1: int) -> np.ndarray:
        return self._rows(r0, r1)

    def rows_at(self, index) -> np.ndarray:
        index = np.asarray(index, dtype=np.int64)
        if index.size == 0:
            return np.zeros((0, self.keys), dtype=bool)
        breaks = np.flatnonzero(np.diff(index) != 1) + 1
        return np.concatenate([self._rows(int(g[0]), int(g[-1]) + 1) for g in np.split(index, breaks)], axis=0)

    def bands(self):
        step = band_rows(self.rows, self.keys)
        for r0 in range(0, self.rows, step):
            r1 = min(self.rows, r0 + step)
            yield r0, r1, self.band(r0, r1)


@dataclass(frozen=True)
class ModDiagnosis:
    alignment: str  # bottom-right | top-left | offset | none
    offset: int
    #: the best reading, and every other that scores as well (doctor.readings)
    fit: Scored | None
    also: tuple[Scored, ...]
    empty_rows: tuple[int, ...]
    empty_count: int
    #: rows that are not one run of keys
    split_rows: int
    #: the fit was skipped: re-reading the split rows would cost about this many cells
    skipped_cells: int = 0


def diagnose_mod(reading: ModReading, stats: RowStats) -> ModDiagnosis:
    """The doctor's readings of the mask_mod (doctor.readings.best_readings
    on the row statistics; split rows are evaluated again, in bands)."""
    rows, keys = reading.rows, reading.keys
    empty = np.flatnonzero(stats.empty)
    split = int(np.count_nonzero(~stats.contiguous))
    common = dict(empty_rows=tuple(int(r) for r in empty[:20]), empty_count=int(empty.size), split_rows=split)
    if split * keys * REREAD_PASSES > REREAD_CELLS:
        return ModDiagnosis("none", keys - rows, None, (), skipped_cells=split * keys * REREAD_PASSES, **common)
    best = best_readings(reading, stats)
    top = best[0]
    return ModDiagnosis(alignment_name(top.rule), top.rule.offset, top, tuple(best[1:]), **common)


def expect_mod(reading: ModReading, stats: RowStats, rule) -> Comparison:
    """Where the mask_mod differs from `rule`, cell-exactly (arithmetic on
    rows that are one run in both, cells read for the others)."""
    return compare(reading, stats, rule)
