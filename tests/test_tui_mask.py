"""Mask mode driven by keys as a user would: `--mask FILE` and `o` with a
mask file, moving over cells and blocks, block sizes, drill-down and back,
the language, help, bad files. Masks are built the way real code builds
them; what is expected comes from how they were built."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console

from maskattn_tui.cli.commands import main
from maskattn_tui.maskmode.saved_doc import open_mask
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.tui import make_app
from maskattn_tui.tui.help import HelpScreen, keys_table
from maskattn_tui.tui.mask_screen import MaskScreen
from maskattn_tui.tui.screen import FigureScreen
from helpers import causal, open_file, recorded, send_key, text_of


@pytest.fixture
def leak(tmp_path):
    mask = causal(6, 6)
    mask[1, 4] = True  # one leaked future cell
    path = tmp_path / "leak.npy"
    np.save(path, mask)
    return path


def on_screen(view) -> str:
    """What the view shows now, line by line (scrolled as it is)."""
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def test_mask_flag_shows_both_tables_and_the_leak(leak):
    app = make_app(mask=open_mask(str(leak)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MaskScreen) and screen.state.size == 1
        grid = screen.query_one("#mask-grid")
        lines = text_of(grid).splitlines()
        q1 = next(line for line in lines if "q1" in line)
        assert q1.count("!") == 2  # the leaked cell, in the user's table and beside it in the rule's
        assert "your mask (True / 1 = attend)" in lines[0] and "the rule: causal" in lines[0]
        for key in ("down", "right", "right", "right", "right"):
            await pilot.press(key)
        await pilot.pause()
        assert (screen.state.row, screen.state.col) == (1, 4)
        explain = text_of(screen.query_one("#mask-explain"))
        assert "query q1 (row 1), key k4" in explain and "a leak" in explain
        assert "future cells visible: 1 (first: (1,4))" in explain
        bars = text_of(screen.query_one("#mask-bars"))
        assert "softmax over 3 of 6 keys" in bars  # q1 sees k0, k1 and the leaked k4


async def test_a_row_move_repaints_two_lines_of_the_grid(tmp_path):
    path = tmp_path / "big.npy"
    np.save(path, causal(4096, 4096))
    app = make_app(mask=open_mask(str(path)), block=1)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        grid = app.screen.query_one("#mask-grid")
        await pilot.press("down")
        await pilot.pause()
        before = grid.lines_drawn
        await pilot.press("down")
        await pilot.pause()
        assert grid.lines_drawn - before == 2  # the row left and the row entered
        assert app.screen.state.row == 2


async def test_blocks_sizes_drill_down_and_back(tmp_path):
    # The leak 40 rows and 40 keys into its block (auto picks 512 at 100x30):
    # out of view after the drill-down, in view after 40 downs and 40 rights.
    leak_row, leak_key = 40, 2600
    mask = causal(4096, 4096)
    mask[leak_row, leak_key] = True
    path = tmp_path / "big.npy"
    np.save(path, mask)
    app = make_app(mask=open_mask(str(path)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        auto = screen.state.size
        assert screen.state.auto and auto > 1
        rows, cols = screen.state.shape
        assert rows * auto >= 4096 and rows <= screen.state.fit[0]
        await pilot.press("minus")
        assert screen.state.size == auto // 2 and not screen.state.auto
        await pilot.press("a")
        assert screen.state.size == auto and screen.state.auto
        await pilot.press("right")
        assert screen.state.col == 1
        for _ in range(leak_key // auto - 1):  # the rest queued at once, as a held key sends them
            send_key(app, "right")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        state = screen.state
        assert state.window == (0, auto, (leak_key // auto) * auto, (leak_key // auto + 1) * auto)
        grid = screen.query_one("#mask-grid")
        assert "!" not in on_screen(grid)  # the leaked cell is in this block, not yet in view
        r0, c0 = state.window[0], state.window[2]
        assert leak_row - r0 >= 40 and leak_key - c0 >= 40  # far enough to need scrolling both ways
        for key in ["down"] * (leak_row - r0) + ["right"] * (leak_key - c0):
            send_key(app, key)
        await pilot.pause()
        assert screen.state.place == (leak_row, leak_key)
        shown = on_screen(grid)
        assert shown.count("!") == 2 and f"q{leak_row}" in shown  # scrolled into view, in both tables
        assert "a leak" in text_of(screen.query_one("#mask-explain"))
        await pilot.press("escape")
        assert screen.state.window is None and screen.state.col == leak_key // auto
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FigureScreen)


async def test_the_language_follows_into_the_figure(leak):
    app = make_app(mask=open_mask(str(leak)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("L")
        await pilot.pause()
        screen = app.screen
        assert app.model.lang == "zh"  # one language: the app model's
        assert "你的掩码" in text_of(screen.query_one("#mask-grid"))
        assert "发现" in text_of(screen.query_one("#mask-explain"))
        await pilot.press("escape")
        await pilot.pause()
        assert app.model.lang == "zh"


async def test_help_lists_the_mask_keys(leak):
    app = make_app(mask=open_mask(str(leak)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=100, record=True, file=io.StringIO())
        console.print(keys_table("en", "^p"))
        listed = console.export_text()
        assert "show the cells of the selected block (mask mode)" in listed
        assert "bigger blocks" in listed and "saved mask" in listed
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MaskScreen)


async def test_o_in_explore_mode_opens_a_mask_and_esc_comes_back(tmp_path):
    mask = np.tril(np.ones((2, 5), dtype=bool))  # torch is_causal=True with 3 cached keys: top-left
    path = tmp_path / "top_left.npy"
    np.save(path, mask)
    config = ExploreConfig(past=2)
    app = make_app(explore=config)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await open_file(pilot, str(path))
        screen = app.screen
        assert isinstance(screen, MaskScreen)
        explain = text_of(screen.query_one("#mask-explain"))
        assert "rows are counted from the top-left corner" in explain
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FigureScreen) and app.model.session.config == config


async def test_a_bad_mask_file_is_one_line_and_nothing_changes(tmp_path):
    # One app for the three files: a refused file changes nothing, and each
    # notice names its own file.
    config = ExploreConfig(past=1)
    app = make_app(explore=config)
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        for name, content, words in [("missing", None, "no such file"), ("empty", b"", "empty"),
                                     ("prose", b"hello there\n", "table")]:
            path = tmp_path / f"{name}.txt"
            if content is not None:
                path.write_bytes(content)
            await open_file(pilot, str(path))
            assert isinstance(app.screen, FigureScreen) and app.model.session.config == config, name
            assert seen and str(path) in seen[-1] and "\n" not in seen[-1], (name, seen)
            assert words in seen[-1].lower(), (name, seen[-1])


async def test_a_pickled_array_is_refused_in_the_app(tmp_path):
    path = tmp_path / "objects.npy"
    np.save(path, np.array([[object(), None]], dtype=object), allow_pickle=True)
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        await open_file(pilot, str(path))
        assert isinstance(app.screen, FigureScreen)
        assert "object" in seen[-1]


def test_cli_mask_options_need_a_mask(capsys):
    assert main(["--batch", "1"]) == 2
    assert "--batch needs --mask FILE" in capsys.readouterr().err


def test_cli_bad_mask_is_one_line_exit_2(tmp_path, capsys):
    assert main(["--mask", str(tmp_path / "missing.npy")]) == 2
    err = capsys.readouterr().err
    assert "missing.npy" in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_block_size_must_be_offered(tmp_path, capsys):
    assert main(["--mask", "x.npy", "--block", "100"]) == 2
    assert "1, 8, 16" in capsys.readouterr().err


async def test_given_scores_drive_the_bars(tmp_path):
    mask = np.tril(np.ones((3, 3), dtype=bool))
    scores = np.log(np.array([[1.0, 1, 1], [1, 3, 1], [2, 1, 1]]))  # q2: weights 2/4, 1/4, 1/4
    np.save(tmp_path / "m.npy", mask)
    np.save(tmp_path / "s.npy", scores)
    app = make_app(mask=open_mask(str(tmp_path / "m.npy"), scores=str(tmp_path / "s.npy")))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down")
        await pilot.pause()
        bars = text_of(app.screen.query_one("#mask-bars"))
        assert "softmax over 3 of 3 keys (your scores)" in " ".join(bars.split())
        assert [line.split()[-1] for line in bars.splitlines() if line.startswith("k")] == \
            ["0.5000", "0.2500", "0.2500"]


def test_cli_scores_of_another_shape_are_one_line(tmp_path, capsys):
    np.save(tmp_path / "m.npy", np.tril(np.ones((3, 3), dtype=bool)))
    np.save(tmp_path / "s.npy", np.zeros((2, 3)))
    assert main(["--mask", str(tmp_path / "m.npy"), "--scores", str(tmp_path / "s.npy")]) == 2
    err = capsys.readouterr().err
    assert "s.npy" in err and "2x3" in err and "3x3" in err and err.count("\n") == 1


@pytest.mark.slow
async def test_random_mask_keys_and_resizes_never_break(tmp_path):
    """Bursts of mask mode's keys with resizes between: the selection stays
    inside the view, a drill-down inside the mask, the size one offered.
    (MaskState's transitions on their own: tests/test_doctor_mask_view.py.)"""
    import random

    from maskattn_tui.model.commands import COMMANDS, MASK

    mask = causal(300, 1000)
    mask[7, 900] = True
    np.save(tmp_path / "m.npy", mask)
    rng = random.Random(5)
    keys = [k for c in COMMANDS if MASK in c.modes and c.id not in ("quit", "open", "help", "mask_back", "mask_goto")  # (these open or leave screens)
            for k in c.keys.split(",")]
    app = make_app(mask=open_mask(str(tmp_path / "m.npy")))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        seen = set()
        for _ in range(8):  # each burst a relayout at a new size (~0.5 s); MaskState alone: test_doctor_mask_view.py
            await pilot.resize_terminal(rng.randint(60, 200), rng.randint(20, 60))
            for _ in range(12):
                send_key(app, rng.choice(keys))
            await pilot.pause()
            state = screen.state
            rows, cols = state.shape
            assert 0 <= state.row < rows and 0 <= state.col < cols
            assert state.size in state.sizes
            if state.window is not None:
                r0, r1, c0, c1 = state.window
                assert 0 <= r0 < r1 <= 300 and 0 <= c0 < c1 <= 1000
            seen.add((state.size, state.window is not None))
            assert app.screen is screen and screen.query_one("#mask-grid").figure is not None
        assert len(seen) > 3  # sizes and drill-downs were visited
