"""--row R: the app starts on query row R, in explore mode (small), on a
configuration beyond 32 + 32 (mask mode on the rule's runs: that row's own
cell, drilled into, so the bars are that row's), with --mask, and in the
figure; a row the table does not have is one line and exit 2."""

import asyncio

import numpy as np
import pytest

from maskattn_tui.cli import main
from maskattn_tui.tui.app import MaskattnApp


def _headless(monkeypatch, seen, size=(100, 30)):
    def run(self, *args, **kwargs):
        async def go() -> None:
            async with self.run_test(size=size) as pilot:
                await pilot.pause()
                await pilot.pause()
                seen.append((self, self.screen))
        asyncio.run(go())
    monkeypatch.setattr(MaskattnApp, "run", run)


@pytest.mark.parametrize("row", [0, 1, 2])  # the default is one of them: each is asked for
def test_row_in_small_explore_mode(monkeypatch, row):
    seen = []
    _headless(monkeypatch, seen)
    assert main(["--lang", "en", "--past", "4", "--new", "3", "--window", "3", "--row", str(row)]) == 0
    player = seen[0][0].model.player
    assert seen[0][0].model.exploring and player.row == row


def test_row_in_the_figure(monkeypatch):
    seen = []
    _headless(monkeypatch, seen)
    assert main(["--lang", "en", "--step", "1", "--row", "2"]) == 0  # step 1 starts on its row 0
    assert seen[0][0].model.player.row == 2 and seen[0][0].model.player.step == 1


def test_row_beyond_32_positions_selects_that_rows_cell(monkeypatch):
    from maskattn_tui.tui.mask_screen import MaskScreen

    seen = []
    _headless(monkeypatch, seen)
    assert main(["--lang", "zh", "--past", "3", "--new", "131072", "--window", "4096", "--row", "100000"]) == 0
    screen = seen[0][1]
    assert isinstance(screen, MaskScreen)
    state = screen.state
    assert state.place == (100000, 100003) and state.cells  # the row's own key, among the cells
    weights = screen.doc.weights(state.place[0])
    assert weights.position == 100003 and weights.count == 4096


def test_row_with_a_saved_mask(monkeypatch, tmp_path):
    from maskattn_tui.tui.mask_screen import MaskScreen

    path = tmp_path / "m.npy"
    np.save(path, np.tril(np.ones((40, 40), dtype=bool)))
    seen = []
    _headless(monkeypatch, seen)
    assert main(["--lang", "en", "--mask", str(path), "--row", "37"]) == 0
    screen = seen[0][1]
    assert isinstance(screen, MaskScreen) and screen.state.place == (37, 37)


@pytest.mark.parametrize("argv,hi", [
    (["--past", "4", "--new", "3", "--row", "3"], 2),
    (["--new", "131072", "--window", "4096", "--row", "131072"], 131071),
    (["--step", "4", "--row", "1"], 0),  # step 4 shows one query row
])
def test_a_row_out_of_range_is_one_line(monkeypatch, capsys, argv, hi):
    seen = []
    _headless(monkeypatch, seen)
    assert main(["--lang", "en", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0] and "--row" in err[0]
    if hi is not None:
        assert f"0 to {hi}" in err[0]
    assert not seen  # the app never started
