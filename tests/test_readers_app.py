"""The readers in the app: `o` reads a mask in a thread with a notice
(the UI keeps answering; a FIFO is a notice, never a frozen app), opens
.npz and .safetensors in mask mode, and --mask takes --key."""

import os

import numpy as np
import pytest

from maskattn_tui.cli import main

CAUSAL = np.tril(np.ones((4, 4), dtype=bool))


# --- the app's `o` ----------------------------------------------------------------------------


async def test_o_reads_a_mask_off_the_ui_thread_with_a_notice(tmp_path, monkeypatch):
    import threading

    from helpers import _path_dialog, drained, recorded, until

    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui import mask_screen
    from maskattn_tui.tui.mask_screen import MaskScreen

    np.save(tmp_path / "m.npy", CAUSAL)
    release, threads = threading.Event(), []
    real_open = mask_screen.open_mask

    def slow_open(path, *args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        release.wait(10)  # a large text mask, being parsed
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(mask_screen, "open_mask", slow_open)
    app = make_app(explore=ExploreConfig(past=1))
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        await _path_dialog(pilot, "o", str(tmp_path / "m.npy"))
        assert threads == [False]  # before: the UI thread, frozen for as long as the read takes
        assert "Reading the mask" in seen[-1] and not isinstance(app.screen, MaskScreen)
        await pilot.press("question_mark")  # the app still answers keys meanwhile
        await pilot.pause()
        help_screen = app.screen
        release.set()
        await app.workers.wait_for_complete()  # call_from_thread: the reader's answer was handed over
        await drained(pilot)
        assert app.screen is help_screen  # the mask waits for the help to close, not pushed over it
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MaskScreen), "in mask mode")
        assert "Opened the mask" in seen[-1]
        assert app.open_path == str(tmp_path / "m.npy")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
async def test_o_on_a_fifo_is_a_notice_not_a_frozen_app(tmp_path):
    from helpers import open_file, recorded

    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui.screen import FigureScreen

    for name in ("mask.npy", "scenario.toml"):
        os.mkfifo(tmp_path / name)
        config = ExploreConfig(past=1)
        app = make_app(explore=config)
        async with app.run_test(size=(100, 30)) as pilot:
            seen = recorded(app)
            await open_file(pilot, str(tmp_path / name))
            assert isinstance(app.screen, FigureScreen) and app.model.session.config == config
            assert "not a regular file" in seen[-1] or "FIFO" in seen[-1], seen


async def test_o_opens_npz_and_safetensors_in_mask_mode(tmp_path):
    pytest.importorskip("safetensors")
    from helpers import open_file
    from safetensors.numpy import save_file

    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui.mask_screen import MaskScreen

    np.savez(tmp_path / "m.npz", CAUSAL)
    save_file({"mask": CAUSAL}, tmp_path / "m.safetensors")
    for name in ("m.npz", "m.safetensors"):
        app = make_app(explore=ExploreConfig(past=1))
        async with app.run_test(size=(100, 30)) as pilot:
            await open_file(pilot, str(tmp_path / name))  # before: read as a scenario file
            assert isinstance(app.screen, MaskScreen), name


def test_mask_mode_takes_key_for_a_file_of_several_arrays(tmp_path, capsys):
    from maskattn_tui.maskmode.saved_doc import open_mask

    np.savez(tmp_path / "two.npz", causal=CAUSAL, full=np.ones((4, 4), dtype=bool))
    doc = open_mask(str(tmp_path / "two.npz"), key="full")
    assert doc.info.key == "full" and doc.tables.user(0, 4, 0, 4).all()
    assert main(["--mask", str(tmp_path / "two.npz"), "--key", "nope"]) == 2  # read before the app starts
    assert "no array named 'nope'; it holds: causal, full" in capsys.readouterr().err
    assert main(["--key", "full"]) == 2
    assert "--key" in capsys.readouterr().err


async def test_o_names_one_array_of_several_as_file_key(tmp_path):
    from helpers import open_file, recorded

    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui.mask_screen import MaskScreen
    from maskattn_tui.tui.screen import FigureScreen

    full = np.ones((4, 4), dtype=bool)
    np.savez(tmp_path / "two.npz", causal=CAUSAL, full=full)
    app = make_app(explore=ExploreConfig(past=1))
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        await open_file(pilot, str(tmp_path / "two.npz"))
        assert isinstance(app.screen, FigureScreen)
        assert "causal, full" in seen[-1] and f"{tmp_path / 'two.npz'}[NAME]" in seen[-1]
        await open_file(pilot, str(tmp_path / "two.npz") + "[full]")
        assert isinstance(app.screen, MaskScreen) and app.screen.doc.info.key == "full"
        assert app.screen.doc.tables.user(0, 4, 0, 4).all()


async def test_o_from_mask_mode_replaces_the_mask(tmp_path):
    from helpers import open_file

    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui.mask_screen import MaskScreen
    from maskattn_tui.tui.screen import FigureScreen

    np.save(tmp_path / "a.npy", CAUSAL)
    np.save(tmp_path / "b.npy", np.ones((3, 5), dtype=bool))
    app = make_app(explore=ExploreConfig(past=1))
    async with app.run_test(size=(100, 30)) as pilot:
        await open_file(pilot, str(tmp_path / "a.npy"))
        await open_file(pilot, str(tmp_path / "b.npy"))
        assert isinstance(app.screen, MaskScreen) and app.screen.doc.info.shape == (3, 5)
        assert sum(isinstance(s, MaskScreen) for s in app.screen_stack) == 1
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FigureScreen)
