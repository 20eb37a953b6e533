"""A mask source answers render.grid_lines.table_scan by arithmetic
(CellSource.scan_summary: the cache / new column groups, whether a query
row is PAD) with what walking every row and column gives, for saved masks
(PAD gaps, caches) and long rules, whole and in drill-down windows."""

import numpy as np
import pytest

from maskattn_tui.doctor.diagnosis import diagnose
from maskattn_tui.maskmode.sources import CellSource, Window
from maskattn_tui.maskmode.tables import MaskTables
from maskattn_tui.render.grid_lines import walked_scan
from maskattn_tui.scale.explore_big import big_config
from maskattn_tui.maskmode.rule_doc import RuleDoc




def _tables():
    keys = np.arange(12)
    causal = keys[None, :] <= keys[-8:, None]  # 8 new rows after a cache of 4
    padded = causal.copy()
    padded[:, [0, 1, 6]] = False  # PAD keys 0-1 and a gap at 6 (a query at 6 is PAD)
    yield MaskTables(causal, diagnose(causal))
    yield MaskTables(padded, diagnose(padded))
    for fields in (dict(past=3, new=200, window=20, pad=5), dict(past=0, new=300, chunk=50, pad=7, pad_side="right"),
                   dict(past=40, new=100, documents=(60, 80)), dict(past=0, new=90, causal=False)):
        yield RuleDoc(big_config(fields)).tables


@pytest.mark.parametrize("index", range(6))
def test_scan_summary_equals_the_walk(index):
    tables = list(_tables())[index]
    rows, keys = tables.rows, tables.keys
    windows = [Window.whole(tables), Window(0, rows // 2, keys // 3, keys), Window(rows // 2, rows, 0, keys // 4),
               Window(rows - 1, rows, keys - 1, keys), Window(1, 2, 0, 1)]
    for which in ("user", "rule"):
        for window in windows:
            source = CellSource(tables, which, window)
            assert source.scan_summary() == walked_scan(source), (window, which)
