"""Explore mode in the app, driven by keys: the side panel's controls
(invalid values keep the state and say why), the experiment and lens keys,
saving (never over a file without a yes) and opening scenario files (a bad
one keeps the state)."""

from __future__ import annotations

import os

import pytest
from textual.widgets import Checkbox, Input, Select, Static

from maskattn_tui import cli
from maskattn_tui.explore import ExploreConfig, load_scenario
from maskattn_tui.explore.session import ExploreSession
from maskattn_tui.tui import make_app
from maskattn_tui.tui.app import MaskattnApp
from maskattn_tui.tui.scenario_dialogs import ConfirmDialog, PathDialog
from helpers import drained, open_file, problem_text, recorded, save_to, send_key, type_into


async def test_starts_in_explore_mode_with_a_configuration():
    config = ExploreConfig(past=4, new=3, pad=1, pad_side="right", empty_row_policy="uniform")
    app = make_app(explore=config)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.model.exploring and app.screen.has_class("-explore")
        assert app.model.player.steps == 1 and app.model.player.rows == 3
        assert app.query_one("#controls").display
        assert app.query_one("#x-past", Input).value == "4"
        assert "past = 4, new = 3" in app.query_one("#player").render().plain
        assert app.focused is None  # the keys belong to the figure
        await drained(pilot)
        # The selects show the configuration; mounting them changed nothing.
        assert app.model.session.config == config
        assert app.query_one("#x-pad-side", Select).value == "right"
        assert app.query_one("#x-empty-row-policy", Select).value == "uniform"


async def test_e_toggles_explore_mode_and_the_figure_comes_back_as_it_was():
    app = make_app(step=3)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("up")
        figure_state = app.model.player
        await pilot.press("e")
        assert app.model.exploring and app.model.player.steps == 1 and app.screen.has_class("-explore")
        await pilot.press("down")
        assert app.model.player.row == 1
        await pilot.press("right", "space")  # player keys mean nothing here
        assert app.model.player.step == 1 and not app.model.player.playing
        await pilot.press("e")
        assert not app.model.exploring and not app.screen.has_class("-explore")
        assert app.model.player == figure_state
        await pilot.press("e")  # the configuration is remembered
        assert app.model.exploring and app.model.player.steps == 1


async def test_a_text_box_applies_a_good_value():
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        await type_into(pilot, "x-past", "5")
        assert app.model.session.config.past == 5
        assert app.model.views[0].table.key_positions == tuple(range(7))
        assert problem_text(app) == ""
        await type_into(pilot, "x-temperature", "0.5")
        assert app.model.session.config.temperature == 0.5
        assert "temperature = 0.5" in app.query_one("#condition").render().plain.replace("\xa0", " ")


#: (text box, typed text, field, the value kept, words of the reason): a
#: whole-number box, a decimal one (the kept value shown as typed) and the
#: seed. Every field's refusal and its words: test_explore_session.py.
REFUSED = [
    ("x-past", "40", "past", 3, ["0 to 32", "40", "kept past = 3"]),
    ("x-temperature", "0", "temperature", 1.0, ["0.1 to 10", "kept temperature = 1"]),
    ("x-seed", "-3", "seed", 0, ["seed", "kept seed = 0"]),
]


async def test_an_out_of_range_value_keeps_the_state_and_says_why():
    # One app for every case: a refusal changes nothing, and each case checks
    # its own new notice and its own words.
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        before = app.model.session
        for widget_id, text, field, kept, words in REFUSED:
            case, count = (widget_id, text), len(seen)
            await type_into(pilot, widget_id, text)
            assert app.model.session == before and getattr(app.model.session.config, field) == kept, case
            assert app.query_one(f"#{widget_id}", Input).value == (f"{kept:g}" if isinstance(kept, float)
                                                                   else str(kept)), case
            assert len(seen) > count and all(w in seen[-1] for w in words), (case, seen)
            shown = problem_text(app)
            assert all(w in shown for w in words), (case, shown)


async def test_the_refusal_follows_the_language():
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        await type_into(pilot, "x-past", "99")
        assert "kept" in problem_text(app)
        await pilot.press("escape", "L")
        assert app.model.player.lang == "zh" and app.model.session.config.past == 3
        assert "保留" in problem_text(app)


async def test_leaving_a_text_box_applies_it_too():
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        await type_into(pilot, "x-new", "4", submit=False)
        await pilot.press("tab")
        await pilot.pause()
        assert app.model.session.config.new == 4 and app.model.player.rows == 4


async def test_selects_and_the_causal_checkbox():
    app = make_app(explore=ExploreConfig(pad=1))
    async with app.run_test(size=(100, 40)) as pilot:
        app.query_one("#x-pad-side", Select).focus()
        await pilot.press("enter", "down", "enter")
        await pilot.pause()
        assert app.model.session.config.pad_side == "right"
        app.query_one("#x-empty-row-policy", Select).focus()
        await pilot.press("enter", "down", "down", "enter")
        await pilot.pause()
        assert app.model.session.config.empty_row_policy == "zeros"
        condition = app.query_one("#condition")
        assert " causal " in condition.render().plain and "not causal" not in condition.render().plain
        assert app.model.views[0].table.causal
        app.query_one("#x-causal", Checkbox).focus()
        await pilot.press("space")
        await pilot.pause()
        assert app.model.session.config.causal is False
        # Both: the condition line says it and the table is built without the rule
        # (with PAD k4 on the right, the cells happen to be the same either way).
        assert "not causal" in condition.render().plain.replace("\xa0", " ")
        assert not app.model.views[0].table.causal


async def test_set_v_and_a_score_directly():
    app = make_app(explore=ExploreConfig(past=3, new=2))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_into(pilot, "x-assign", "V[future]=9999")
        assert app.model.session.config.v_override == ((4, 9999.0),)
        assert app.query_one("#x-assign", Input).value == ""
        assert "V[4]=9999" in str(app.query_one("#x-overrides", Static).render())
        await type_into(pilot, "x-assign", "S[0,1]=4")
        assert app.model.session.config.score_override == ((0, 1, 4.0),)
        assert app.model.views[0].result.scores[0][1] == 4.0
        seen = recorded(app)
        await type_into(pilot, "x-assign", "V[7]=1")
        assert app.model.session.config.v_override == ((4, 9999.0),)
        assert seen and "0 to 4" in seen[-1]


async def test_experiment_and_lens_keys():
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        assert not app.query_one("#lab-pane").display or not app.screen.has_class("-lab")
        await pilot.press("1", "3")
        assert app.model.session.experiments == ("leak-probe", "polarity-bug")
        assert app.screen.has_class("-lab")
        assert app.query_one("#x-leak-probe", Checkbox).value
        await pilot.press("a")
        assert app.model.session.lens and app.query_one("#x-lens", Checkbox).value
        await pilot.pause()
        assert app.query_one("#lab-pane").region.area > 0
        await pilot.press("1", "3", "a")
        assert app.model.session.experiments == () and not app.model.session.lens
        assert not app.screen.has_class("-lab")


async def test_experiment_keys_do_nothing_outside_explore_mode():
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        before = app.model.session
        await pilot.press("1", "a", "s")
        assert app.model.session == before and len(app.screen_stack) == 1


async def test_a_32_plus_32_grid_scrolls_and_stays_labelled():
    app = make_app(explore=ExploreConfig(past=32, new=32))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = app.query_one("#grid")
        assert pane.max_scroll_x > 0 and pane.max_scroll_y > 0
        await pilot.press("end")  # a player key: nothing happens
        for _ in range(40):
            send_key(app, "down")  # queued as typed; the screen draws once they are handled
        await drained(pilot)
        assert app.model.player.row == 32 - 1
        assert pane.scroll_y > 0  # the selected row q63 was scrolled into view
        bars = app.query_one("#bars").figure
        title = " ".join("".join(s.text for s in bars.full(y)) for y in range(2))  # the title's lines
        assert "query 63" in title


async def test_save_writes_a_file_that_reads_back(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app(explore=ExploreConfig(past=2, new=3, pad=1, pad_side="right", temperature=0.5))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_into(pilot, "x-assign", "V[4]=9999")
        await pilot.press("escape")
        await pilot.press("s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PathDialog)
        assert dialog.query_one("#path", Input).value == "maskattn-scenario.toml"
        await pilot.press("enter")
        await pilot.pause()
        assert len(app.screen_stack) == 1
    assert load_scenario(tmp_path / "maskattn-scenario.toml") == app.model.session.config


async def test_a_dialog_answers_once(tmp_path):
    """Two quick Enters (or y then n) must not dismiss the screen below."""
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("s")
        await pilot.pause()
        app.screen.query_one("#path", Input).value = str(tmp_path / "once.toml")
        send_key(app, "enter")
        send_key(app, "enter")
        await pilot.pause()
        assert len(app.screen_stack) == 1 and app.is_running
        await save_to(pilot, str(tmp_path / "once.toml"))
        send_key(app, "y")
        send_key(app, "n")
        await pilot.pause()
        assert len(app.screen_stack) == 1 and app.is_running
    assert load_scenario(tmp_path / "once.toml") == ExploreConfig()


async def test_an_existing_file_is_replaced_only_after_yes(tmp_path):
    target = tmp_path / "mine.toml"
    target.write_text("# someone else's file\n", encoding="utf-8")
    app = make_app(explore=ExploreConfig(past=5))
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        await save_to(pilot, str(target))
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("enter")  # the focused button is "Keep it"
        await pilot.pause()
        assert len(app.screen_stack) == 1
        assert target.read_text(encoding="utf-8") == "# someone else's file\n"
        assert seen and "left as it was" in seen[-1]
        await save_to(pilot, str(target))
        await pilot.press("escape")
        await pilot.pause()
        assert target.read_text(encoding="utf-8") == "# someone else's file\n"
        await save_to(pilot, str(target))
        await pilot.press("y")
        await pilot.pause()
    assert load_scenario(target) == ExploreConfig(past=5)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


#: (name, file content, words of the reason)
BAD_SCENARIOS = [
    ("out-of-range", "past = 40\n", ["past", "0 to 32"]),
    ("unknown-key", "past = 3\ncolour = 'red'\n", ["colour"]),
    ("not-toml", "past = [\n", ["TOML"]),
    ("nan", "temperature = nan\n", ["temperature"]),
    ("wrong-shape", "new = 2\nq = [[1.0, 0.0]]\n", ["q"]),
]


async def test_a_bad_scenario_file_keeps_the_state(tmp_path):
    # One app for every file: a refused file changes nothing, and each notice
    # names its own file.
    app = make_app(explore=ExploreConfig(past=4))
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        before = (app.model.session, app.model.player, app.model.views)
        for name, content, words in BAD_SCENARIOS:
            bad = tmp_path / f"{name}.toml"
            bad.write_text(content, encoding="utf-8")
            await open_file(pilot, str(bad))
            assert (app.model.session, app.model.player, app.model.views) == before, name
            assert seen and str(bad) in seen[-1], (name, seen)
            assert all(w in seen[-1] for w in words), (name, seen[-1])


async def test_a_missing_file_keeps_the_state(tmp_path):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        await open_file(pilot, str(tmp_path / "nowhere.toml"))
        assert not app.model.exploring and app.model.player.steps == 5
        assert "nowhere.toml" in seen[-1]


async def test_a_good_scenario_file_is_shown(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text("past = 6\nnew = 2\ncausal = false\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_file(pilot, str(good))
        assert app.model.exploring and app.model.session.config == ExploreConfig(past=6, new=2, causal=False)
        assert app.query_one("#x-past", Input).value == "6"
        assert not app.query_one("#x-causal", Checkbox).value


def test_cli_passes_the_explore_options_to_the_app(monkeypatch):
    made: list[MaskattnApp] = []
    monkeypatch.setattr(MaskattnApp, "run", lambda self, *a, **k: made.append(self))
    assert cli.main(["--past", "4", "--new", "3", "--no-causal", "--experiment", "leak-probe", "--lens", "hf"]) == 0
    app = made[-1]
    assert app.model.session == ExploreSession(
        config=ExploreConfig(past=4, new=3, causal=False), experiments=("leak-probe",), lens=True, active=True)
    assert cli.main([]) == 0
    assert not made[-1].model.exploring


def test_cli_scenario_file_starts_explore_mode(monkeypatch, tmp_path):
    made: list[MaskattnApp] = []
    monkeypatch.setattr(MaskattnApp, "run", lambda self, *a, **k: made.append(self))
    path = tmp_path / "s.toml"
    path.write_text("past = 1\nnew = 1\n", encoding="utf-8")
    assert cli.main(["--scenario", str(path)]) == 0
    assert made[-1].model.exploring and made[-1].model.session.config == ExploreConfig(past=1, new=1)


def assert_consistent(app: MaskattnApp) -> None:
    session, state, views = app.model.session, app.model.player, app.model.views
    # (no session until explore mode is first asked for)
    assert session is None or isinstance(session.config, ExploreConfig)  # always a validated one
    if app.model.exploring:
        assert state.steps == 1 and len(views) == 1
        assert views[0].table.query_positions == session.config.query_positions
        assert state.rows == session.config.new
    else:
        assert state.steps == 5 and len(views) == 5
    assert 0 <= state.row < state.rows and not (app.model.exploring and state.playing)


@pytest.mark.slow
async def test_random_explore_keys_and_resizes_never_break(tmp_path, monkeypatch):
    """Explore keys, Tab into the controls, digits, letters, Enter, Esc and
    the figure's keys, with resizes: the state always stays consistent."""
    # Random keys may open the save dialog and press Enter: write in a scratch folder.
    monkeypatch.chdir(tmp_path)
    import random

    from maskattn_tui.model.commands import COMMANDS

    rng = random.Random(11)
    keys = [k for c in COMMANDS if c.action != "quit" for k in c.keys.split(",")]
    keys += ["tab", "shift+tab", "enter", "escape", "escape", "backspace", *"0123456789.-V[]=xy"]
    keys += ["e"] * 3  # one key in twenty toggles explore mode: a short run spends time in both modes
    app = make_app(dwell=0.25)
    sessions: list[ExploreSession] = []
    async with app.run_test(size=(100, 30)) as pilot:
        # (no session until explore mode is first asked for)
        app.watch(app, "model", lambda m: m.session is not None and sessions.append(m.session), init=False)
        for _ in range(10):  # 10 bursts of 18 keys, a resize before each
            await pilot.resize_terminal(rng.randint(40, 200), rng.randint(12, 60))
            for _ in range(18):
                send_key(app, rng.choice(keys))
            await pilot.pause()
            assert_consistent(app)
        while len(app.screen_stack) > 1:
            await pilot.press("escape")
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert_consistent(app)
        assert app.query_one("#body").region.area > 0, (app.screen_stack, app.screen.classes, app.size)
        # ... and still answers: explore on, a value typed into the panel.
        if not app.model.exploring:
            await pilot.press("e")
        await type_into(pilot, "x-new", "7")
        assert app.model.session.config.new == 7 and app.model.player.rows == 7
    assert app.return_code in (None, 0)
    # The keys reached explore mode and changed it in several ways.
    assert sum(s.active for s in sessions) > 5
    assert len({s.experiments for s in sessions}) > 3


async def test_z_enlarges_the_experiments_when_they_are_on():
    app = make_app(explore=ExploreConfig(), experiments=("offset-bug",))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lab = app.query_one("#lab-pane")
        before = lab.region.height
        await pilot.press("z")
        await pilot.pause()
        assert lab.region.height > before and app.query_one("#grid").region.area == 0
        assert app.query_one("#controls").region.area == 0
        await pilot.press("z")
        await pilot.pause()
        assert lab.region.height == before and app.query_one("#grid").region.area > 0


@pytest.mark.parametrize("second", ["s", "o"])
async def test_a_dialog_opened_while_quitting_does_not_crash(second):
    # Found in tmux: "q" then "s" (or "o") before the app has gone.
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(80, 24)) as pilot:
        send_key(app, "q")
        send_key(app, second)
        await drained(pilot)
    assert app.return_code in (None, 0)
