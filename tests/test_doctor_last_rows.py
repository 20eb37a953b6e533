"""The last row that sees each key (doctor.rows.last_rows), which robust
document starts read: equal to a dense column scan on random masks (rows of
one run, scattered rows, empty rows), and made without a second pass over a
mask_mod's table (the doctor on documents at 1000 x 1000 evaluates each cell
once in its scan, and re-reads no row whose keys are one run)."""

import numpy as np
import pytest

from maskattn_tui.doctor.representation import Reading, classify
from maskattn_tui.doctor.rows import last_rows, scan


def _dense(mask):
    rows = np.arange(mask.shape[0])[:, None]
    return np.where(mask, rows, -1).max(axis=0, initial=-1)


@pytest.mark.parametrize("seed", range(40))
def test_last_rows_equal_a_dense_column_scan(seed):
    rng = np.random.default_rng(seed)
    rows, keys = (int(x) for x in rng.integers(1, 70, 2))
    mask = np.zeros((rows, keys), dtype=bool)
    for r in range(rows):
        kind = rng.random()
        if kind < 0.7:
            a = int(rng.integers(0, keys))
            mask[r, a: int(rng.integers(a, keys)) + 1] = True
        elif kind < 0.85:
            mask[r] = rng.random(keys) < 0.3
    reading = Reading(mask, classify(mask))
    np.testing.assert_array_equal(last_rows(scan(reading), reading), _dense(mask))


def test_the_documents_reading_of_a_mask_mod_reads_each_cell_once(tmp_path):
    pytest.importorskip("torch")
    from maskattn_tui.scale.mask_mod import evaluator, load
    from maskattn_tui.scale.reading import ModReading, diagnose_mod
    from maskattn_tui.scale.tiles import scan as scan_tiles

    path = tmp_path / "mods.py"
    path.write_text(
        "import torch\n"
        "doc_id = torch.repeat_interleave(torch.arange(3), torch.tensor([300, 200, 500]))\n"
        "def documents(b, h, q_idx, kv_idx):\n"
        "    return (doc_id[q_idx] == doc_id[kv_idx]) & (q_idx >= kv_idx)\n")
    ev = evaluator(load(f"{path}:documents"), "documents", 1000, 1000)
    cells = [0]
    tile = ev.tile

    def counted(q0, q1, k0, k1):
        cells[0] += (q1 - q0) * (k1 - k0)
        return tile(q0, q1, k0, k1)

    ev.tile = counted
    result = scan_tiles(ev.tile, 1000, 1000, 128, 128)
    assert cells[0] == 1000 * 1000
    diag = diagnose_mod(ModReading(ev, 1000, 1000), result.stats)
    assert diag.fit.rule.documents == (300, 200, 500)
    assert cells[0] == 1000 * 1000  # the reading re-read nothing: every row is one run
