"""`maskattn-tui --mask FILE.py:NAME --q-len Q --kv-len K`: mask mode on a
user's mask_mod. FILE.py is imported and run (the user's code, on their
request).

Mask mode's saved-file document (saved_doc.SavedDoc over tables.MaskTables)
reads a saved table, so the mask_mod is written tile by tile into an anonymous
memory-mapped file of Q x K booleans, then opened as a saved mask is: the
same diagnosis, block overview and drill-down. This holds up to
MAX_CELLS (16,384², the size mask mode is measured at); beyond it,
`doctor FILE.py:NAME` reads the mask_mod by blocks without any table."""

from __future__ import annotations

import tempfile

import numpy as np

from maskattn_tui.errors import MaskattnError
from maskattn_tui.maskmode.saved_doc import SavedDoc
from maskattn_tui.maskmode.tables import MaskTables
from maskattn_tui.scale.mask_mod import check_index, evaluator, load, one_thread, split_spec, users_code
from maskattn_tui.scale.tiles import TILE_CELLS, cores, each_band

MAX_CELLS = 16384 * 16384


def mask_mod_table(spec: str, q_len: int, kv_len: int, b: int = 0, h: int = 0) -> np.ndarray:
    """The mask_mod's table (True = may read) in a memory map."""
    if q_len * kv_len > MAX_CELLS:
        raise MaskattnError("scale_mask_too_big", spec=spec, q_len=q_len, kv_len=kv_len, most=MAX_CELLS)
    with users_code():  # what their module prints goes to stderr (print --mask's report is stdout)
        fn = load(spec)
        ev = evaluator(fn, split_spec(spec)[1], q_len, kv_len, b, h)
        table = np.memmap(tempfile.TemporaryFile(), dtype=bool, mode="w+", shape=(q_len, kv_len))

        def band(r0: int, r1: int):
            table[r0:r1] = ev.tile(r0, r1, 0, kv_len)
            yield

        with one_thread(ev.engine):
            each_band(q_len, max(1, TILE_CELLS // kv_len), band, cores())
    return table


def open_mask_mod(spec: str, q_len: int | None, kv_len: int | None, batch: int | None, head: int | None,
                  scores: str | None) -> SavedDoc:
    """The saved-file document (saved_doc.SavedDoc) of the mask_mod at (b, h) = (batch, head)."""
    from maskattn_tui.doctor.diagnosis import diagnose
    from maskattn_tui.doctor.read import MaskInfo

    if q_len is None or kv_len is None:
        raise MaskattnError("scale_needs_lengths", option="--q-len" if q_len is None else "--kv-len")
    if scores is not None:
        raise MaskattnError("scale_mask_scores")
    table = mask_mod_table(spec, q_len, kv_len, check_index("--batch", batch), check_index("--head", head))
    info = MaskInfo(spec, "mask_mod", (q_len, kv_len), "bool", None, None, None)
    tables = MaskTables(table, diagnose(table, source=info))
    tables.base  # the one pass of block counts, now rather than at the first drawing
    return SavedDoc(info, tables)
