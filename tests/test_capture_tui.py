"""Mask mode on a capture folder: `--mask DIR` opens the first call's table
with the call named in the title, n / N step through the calls, m / M
through the distinct masks; `o` opens a capture folder too."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from maskattn_tui.maskmode.capture_doc import open_capture  # noqa: E402
from maskattn_tui.tui import make_app  # noqa: E402
from maskattn_tui.tui.mask_screen import MaskScreen  # noqa: E402


@pytest.fixture
def folder(tmp_path):
    """Three calls in two modules: a 4x4 causal table twice, then one decode
    row with the is_causal bug (1x5, key 0 only)."""
    from maskattn_tui import capture

    class Layer(torch.nn.Module):
        def forward(self, q, k, causal):
            return F.scaled_dot_product_attention(q, k, k, is_causal=causal)

    model = torch.nn.ModuleDict({"a": Layer(), "b": Layer()})
    q = torch.randn(1, 1, 4, 8)
    with capture(tmp_path) as cap:
        model["a"](q, q, True)
        model["b"](q, q, True)
        model["a"](q[:, :, :1], torch.randn(1, 1, 5, 8), True)
    assert len(cap.calls) == 3
    return tmp_path


def title(app) -> str:
    return str(app.screen.query_one("#mask-title").render())


async def test_the_picker_steps_through_calls_and_masks(folder):
    app = make_app(mask=open_capture(str(folder)))
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MaskScreen)
        assert "call 0 (1/3)" in title(app) and "mask " in title(app) and "(1/2" in title(app)
        assert "across calls" not in title(app)
        assert app.screen.doc.tables.rows == 4
        await pilot.press("n")
        await pilot.pause()
        assert "call 1 (2/3)" in title(app) and "(1/2" in title(app)  # the same mask, another layer
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert "call 2 (3/3)" in title(app) and "(2/2" in title(app)
        assert "across calls: error: decode-is-causal" in title(app)  # said in words, not by colour
        assert (screen.doc.tables.rows, screen.doc.tables.keys) == (1, 5)
        table = np.load(screen.doc.path)
        assert table.tolist() == [[True, False, False, False, False]]
        await pilot.press("n")  # no call after the last: a notice, the screen stays
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("M")
        await pilot.pause()
        assert "call 0 (1/3)" in title(app)
        await pilot.press("N")  # before the first: stays
        await pilot.pause()
        assert "call 0 (1/3)" in title(app)


def test_mask_flag_with_a_folder_that_is_no_capture(tmp_path, capsys):
    from maskattn_tui.cli import main

    assert main(["--mask", str(tmp_path)]) == 2
    assert "not a capture folder" in capsys.readouterr().err


async def test_o_opens_a_capture_folder(folder):
    from helpers import open_file, until

    app = make_app()
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.pause()
        await open_file(pilot, str(folder))
        await until(pilot, lambda: isinstance(app.screen, MaskScreen), "in mask mode")  # read in a worker thread
        assert isinstance(app.screen, MaskScreen) and "call 0 (1/3)" in title(app)
        await pilot.press("m")
        await pilot.pause()
        assert "call 2 (3/3)" in title(app)
