"""The app driven by keys, clicks and resizes: every change of state is the
step machine's, the widgets only show it."""

from __future__ import annotations

import io
import random

from rich.console import Console

import pytest
from textual import events

from maskattn_tui.i18n import LANGS, t
from maskattn_tui.lesson.f12 import load_f12
from maskattn_tui.model.step_machine import DWELL_MAX, DWELL_MIN, PlayerState, new_player, shape_of
from maskattn_tui.tui import make_app
from maskattn_tui.tui.app import MIN_HEIGHT, MIN_WIDTH
from maskattn_tui.model.commands import COMMANDS
from maskattn_tui.tui.help import HelpScreen, keys_table
from maskattn_tui.tui.widgets.grid import GridView, row_at
from helpers import drained, searched, send_key, until

SHAPES = tuple(shape_of(s) for s in load_f12().steps)

#: What each key should do, straight from the machine.
MODEL = {
    "left": PlayerState.prev,
    "right": PlayerState.next,
    "space": PlayerState.toggle_play,
    "plus": PlayerState.slower,
    "minus": PlayerState.faster,
    "home": PlayerState.first,
    "end": PlayerState.last,
    "up": lambda s: s.move_row(-1),
    "down": lambda s: s.move_row(1),
    "L": PlayerState.toggle_language,
}


def assert_valid(state: PlayerState) -> None:
    assert 1 <= state.step <= state.steps == 5
    assert 0 <= state.row < state.rows
    assert DWELL_MIN <= state.dwell <= DWELL_MAX
    assert state.lang in LANGS
    assert not (state.playing and state.at_last)


async def test_starts_still_at_step_1():
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.model.player == new_player(SHAPES)
        assert not app.model.player.playing


@pytest.mark.parametrize(
    "keys",
    [
        ["right", "right", "down", "up", "up", "left", "end", "home"],
        ["space", "space", "plus", "plus", "minus", "end", "space", "right"],
        ["end", "down", "down", "up", "L", "left", "L", "home", "left"],
        ["minus"] * 12 + ["plus"] * 15,
    ],
    ids=["steps-and-rows", "play-and-dwell", "rows-and-language", "dwell-bounds"],
)
async def test_keys_change_state_as_the_machine_says(keys):
    app = make_app(dwell=10.0)  # long dwell: no tick during the test
    expected = new_player(SHAPES, dwell=10.0)
    async with app.run_test() as pilot:
        for key in keys:
            await pilot.press(key)
            expected = MODEL[key](expected)
            assert app.model.player == expected, key


async def test_playback_reaches_the_last_step_and_stops():
    app = make_app(play=True, dwell=0.25)
    async with app.run_test() as pilot:
        assert app.model.player.playing
        await until(pilot, lambda: app.model.player.at_last, "at the last step")
        await pilot.pause()
        # nothing more happens: the playback timer is stopped (a stopped
        # player's tick is a no-op: test_step_machine.py), not left running
        assert app._timer is None
        assert app.model.player.step == 5
        assert not app.model.player.playing
        assert app.return_code is None  # still running, no error


async def test_manual_step_pauses_playback():
    app = make_app(play=True, dwell=10.0)
    async with app.run_test() as pilot:
        assert app.model.player.playing
        await pilot.press("right")
        assert app.model.player.step == 2
        assert not app.model.player.playing


async def test_play_at_the_last_step_restarts():
    app = make_app(step=5, dwell=10.0)
    async with app.run_test() as pilot:
        await pilot.press("space")
        assert app.model.player.step == 1 and app.model.player.playing


async def test_exit_at_end_exits_zero_after_the_last_step():
    app = make_app(play=True, dwell=0.25, exit_at_end=True)
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.return_code is not None, "exited")
    assert app.return_code == 0
    assert app.model.player.step == 5


async def test_language_switch_keeps_step_and_row():
    app = make_app(step=3)
    async with app.run_test() as pilot:
        await pilot.press("up")
        before = app.model.player
        await pilot.press("L")
        assert app.model.player.lang == "zh"
        assert (app.model.player.step, app.model.player.row) == (before.step, before.row) == (3, 1)
        condition = app.query_one("#condition").render()
        assert "条件" in condition.plain
        await pilot.press("L")
        assert app.model.player == before


@pytest.mark.parametrize("step,row", [(1, 2), (3, 0), (5, 1)], ids=["step1-row2", "step3-row0", "step5-row1"])
async def test_click_on_a_grid_row_selects_it(step, row):
    app = make_app(step=step, dwell=10.0)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        grid = app.query_one("#grid", GridView)
        lines = [y for y in range(grid.content_size.height) if row_at(grid.figure, y) == row]
        assert lines, "the row is drawn somewhere"
        # Offsets count from the border (the pane title), content lines from under it.
        assert await pilot.click("#grid", offset=(4, lines[0] + grid.styles.gutter.top))
        assert app.model.player.row == row
        assert app.model.player.step == step


async def test_click_outside_the_rows_changes_nothing():
    app = make_app(step=3)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        before = app.model.player
        await pilot.click("#grid", offset=(2, 0))  # the top border
        await pilot.click("#grid", offset=(4, 1))  # the key header
        assert app.model.player == before


async def test_help_lists_every_binding_and_blocks_figure_keys():
    app = make_app(step=2)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=100, record=True, file=io.StringIO())
        console.print(keys_table("en", "^p"))
        text = console.export_text()
        words = " ".join(text.split())  # the descriptions wrap at 100 columns
        for command in COMMANDS:
            assert command.display in text
            assert t(command.help, "en") in words
        assert app.screen.query_one("#keys-table")
        before = app.model.player
        await pilot.press("right", "space", "L")
        assert app.model.player == before
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("right")
        assert app.model.player.step == 3


async def test_zoom_enlarges_the_figure_and_back():
    app = make_app(step=4)
    async with app.run_test() as pilot:
        body = app.query_one("#body")
        await pilot.press("z")
        assert app.model.zoomed and body.has_class("-zoomed")
        await pilot.pause()
        assert not app.query_one("#bars").display or app.query_one("#bars").region.area == 0
        assert app.query_one("#grid").region.height > 15
        assert "z: back" in app.query_one("#grid").border_title  # the title says how to go back
        await pilot.press("z")
        await pilot.pause()
        assert not app.model.zoomed and app.query_one("#bars").region.area > 0
        assert app.model.player.step == 4


async def test_too_small_notice_and_recovery():
    app = make_app(step=2)
    async with app.run_test(size=(80, 24)) as pilot:
        notice = app.query_one("#too-small")
        assert notice.region.area == 0
        await pilot.resize_terminal(MIN_WIDTH - 1, 30)
        await pilot.pause()
        assert notice.region.area > 0 and app.query_one("#body").region.area == 0
        assert f"{MIN_WIDTH}x{MIN_HEIGHT}" in notice.render().plain
        await pilot.resize_terminal(100, MIN_HEIGHT - 1)
        await pilot.pause()
        assert notice.region.area > 0
        await pilot.resize_terminal(MIN_WIDTH, MIN_HEIGHT)
        await pilot.pause()
        assert notice.region.area == 0 and app.query_one("#body").region.area > 0
        assert app.model.player.step == 2


async def test_command_palette_goes_to_a_step():
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Go to step 4")
        await searched(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.model.player.step == 4


async def test_quit():
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("q")
    assert app.return_code == 0


def _random_keys() -> list[str]:
    keys = []
    for command in COMMANDS:
        # Not q (it ends the run; tested above), nor e / o (explore mode and
        # its dialogs: tests/test_tui_explore.py).
        if command.id not in {"quit", "explore", "open"} and "figure" in command.modes:
            keys.extend(k.strip() for k in command.keys.split(","))
    return keys + ["escape"]  # leaves help


#: Each burst costs a relayout at a new size (~0.4 s): the step machine's
#: transitions are checked exhaustively in test_step_machine.py and
#: test_app_model.py; this run is about the screen surviving keys and
#: resizes mixed.
BURSTS = 10


@pytest.mark.slow
async def test_random_keys_and_resizes_never_break(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # whatever the keys open writes nothing into the checkout
    rng = random.Random(20261129)
    keys = _random_keys()
    app = make_app(dwell=0.25)
    seen: list[PlayerState] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.watch(app, "model", lambda model: seen.append(model.player), init=False)
        for _ in range(BURSTS):  # bursts of 20 keys, a resize before each
            width, height = rng.randint(20, 200), rng.randint(6, 60)
            await pilot.resize_terminal(width, height)
            for _ in range(20):
                send_key(app, rng.choice(keys))
            await pilot.pause()
            assert_valid(app.model.player)
            if width >= MIN_WIDTH and height >= MIN_HEIGHT and app.screen is app.screen_stack[0]:
                header = app.query_one("#player").render().plain
                assert f"{app.model.player.step} / 5" in header or f"{app.model.player.step} / 5 步" in header
        await pilot.press("escape")
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert_valid(app.model.player)
        assert app.query_one("#body").region.area > 0
    assert len(seen) > BURSTS * 20 // 5  # the keys really went through the machine (help blocks some)
    for state in seen:
        assert_valid(state)
    assert app.return_code in (None, 0)


async def test_command_palette_switches_language_and_plays():
    app = make_app(step=2, dwell=10.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"Language")
        await searched(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.model.player.lang == "zh" and app.model.player.step == 2
        await pilot.press("ctrl+p")
        await pilot.press(*"播放")
        await searched(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.model.player.playing


async def test_keys_typed_after_q_in_one_burst_do_nothing():
    # "question_mark" typed as text: q quits, then u, e (explore), s, t...
    # arrive while the app closes; e used to mount the explore panel into
    # a closing screen and end in a traceback.
    app = make_app(lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for ch in "question_mark":
            app.post_message(events.Key(ch, ch))
        await drained(pilot)
    assert app.return_code == 0
    assert not app.model.exploring
