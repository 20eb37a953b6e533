"""Mask mode on a 4-D mask: b / B and h / H switch the (batch, head) slice
(the title names it), each slice read as the doctor reads it; a 2-D mask
says it has one slice. The chosen reading's table is shown beside the
user's, and equal readings are named in the findings."""

from __future__ import annotations

import numpy as np

from maskattn_tui.maskmode.saved_doc import open_mask, other_slice
from maskattn_tui.tui import make_app
from maskattn_tui.tui.mask_screen import MaskScreen
from helpers import causal, text_of


def title(screen) -> str:
    return str(screen.query_one("#mask-title").render())


def four_d(tmp_path):
    mask = np.broadcast_to(causal(5, 5), (2, 3, 5, 5)).copy()
    mask[1, :, :, :2] = False  # batch 1: two left PAD keys
    mask[0, 2, 1, 3] = True  # batch 0, head 2: one leaked cell
    path = tmp_path / "m.npy"
    np.save(path, mask)
    return path


def test_other_slice_wraps_and_reads_each_slice(tmp_path):
    doc = open_mask(str(four_d(tmp_path)))
    assert (doc.info.batch, doc.info.head) == (0, 0)
    nxt = other_slice(doc, 0, 1)
    assert (nxt.info.batch, nxt.info.head) == (1, 0) and nxt.tables.diagnosis.pad_runs == ((0, 2),)
    assert other_slice(nxt, 0, 1).info.batch == 0  # wraps
    back = other_slice(doc, 1, -1)
    assert (back.info.batch, back.info.head) == (0, 2) and back.tables.diagnosis.leaks == ((1, 3),)
    np.save(tmp_path / "flat.npy", causal(3, 3))
    assert other_slice(open_mask(str(tmp_path / "flat.npy")), 0, 1) is None


async def test_b_and_h_switch_the_slice_in_mask_mode(tmp_path):
    app = make_app(mask=open_mask(str(four_d(tmp_path))))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert "[batch 0, head 0]" in title(app.screen)
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MaskScreen) and screen.doc.info.batch == 1
        assert "[batch 1, head 0]" in title(screen)
        assert "PAD keys 0-1" in text_of(screen.query_one("#mask-explain"))
        await pilot.press("H")
        await pilot.pause()
        assert (app.screen.doc.info.batch, app.screen.doc.info.head) == (1, 2)


async def test_equal_readings_are_named_in_mask_mode(tmp_path):
    mask = causal(6, 6)
    mask[0, 1] = True  # a prefix-LM of 2, or causal with a leak at (0,1)
    np.save(tmp_path / "p.npy", mask)
    app = make_app(mask=open_mask(str(tmp_path / "p.npy")))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        explain = " ".join(text_of(app.screen.query_one("#mask-explain")).split())
        assert "readings fit this table equally simply" in explain and "causal with 1 cell differing ((0,1))" in explain
        grid = text_of(app.screen.query_one("#mask-grid"))
        assert "prefix-LM, prefix 2" in grid  # the chosen reading's table, beside the user's
