"""Explore mode's transitions, without Textual: a refused value keeps the
old session and says why, in both languages."""

from __future__ import annotations

import subprocess
import sys

import pytest

from maskattn_tui.explore import ExploreConfig, run_experiment
from maskattn_tui.explore.experiments import EXPERIMENTS, PROBE_VALUE
from maskattn_tui.explore.session import ExploreSession, Problem, new_session, shown_value
from maskattn_tui.i18n import LANGS


def on(**config) -> ExploreSession:
    return ExploreSession(config=ExploreConfig(**config), active=True)


@pytest.mark.parametrize(
    "name,text,expected",
    [
        ("past", "5", {"past": 5}),
        ("past", " 0 ", {"past": 0}),
        ("new", "32", {"new": 32}),
        ("pad", "2", {"pad": 2}),
        ("pad_side", "right", {"pad_side": "right"}),
        ("causal", "off", {"causal": False}),
        ("causal", False, {"causal": False}),
        ("temperature", "0.1", {"temperature": 0.1}),
        ("temperature", "10", {"temperature": 10.0}),
        ("empty_row_policy", "uniform", {"empty_row_policy": "uniform"}),
        ("seed", "42", {"seed": 42}),
    ],
)
def test_a_good_value_is_taken(name, text, expected):
    session, problem = on().set_field(name, text)
    assert problem is None
    for field, value in expected.items():
        assert getattr(session.config, field) == value


@pytest.mark.parametrize(
    "name,text,words",
    [
        ("past", "33", ["past", "0", "32", "33", "kept", "3"]),
        ("past", "-1", ["past", "-1", "kept past = 3"]),
        ("new", "0", ["new", "1", "32", "kept new = 2"]),
        ("new", "abc", ["new", "whole number", "abc", "kept 2"]),
        ("pad", "9", ["pad", "past + new = 5", "kept pad = 0"]),
        ("temperature", "0", ["temperature", "0.1", "10", "kept temperature = 1"]),
        ("temperature", "11", ["temperature", "kept"]),
        ("temperature", "nan", ["temperature", "kept"]),
        ("temperature", "inf", ["temperature", "kept"]),
        ("temperature", "warm", ["temperature", "number", "kept 1"]),
        ("pad_side", "middle", ["pad_side", "left, right", "kept left"]),
        ("empty_row_policy", "ignore", ["empty_row_policy", "error, nan, zeros, uniform", "kept error"]),
        ("seed", "1.5", ["seed", "whole number", "kept 0"]),
        ("seed", str(2**32), ["seed", "kept"]),
        ("causal", "maybe", ["causal", "on or off", "kept on"]),
        ("nonsense", "1", ["nonsense"]),
    ],
)
def test_a_bad_value_keeps_the_session_and_says_why(name, text, words):
    before = on()
    after, problem = before.set_field(name, text)
    assert after is before
    assert isinstance(problem, Problem)
    message = problem.message("en")
    for word in words:
        assert word in message, (word, message)
    zh = problem.message("zh")
    assert zh and zh != message and any("\u4e00" <= ch <= "\u9fff" for ch in zh)


def test_pad_beyond_a_shrunk_sequence_is_refused_and_kept():
    session, _ = on(past=3, new=2, pad=4).set_field("past", "1")
    assert session.config.past == 3 and session.config.pad == 4


def test_resizing_drops_overrides_that_no_longer_fit():
    session, _ = on(past=3, new=2).assign("V[4]=9999")
    session, _ = session.assign("S[1,4]=7")
    session, problem = session.set_field("new", "1")
    assert problem is None
    assert session.config.new == 1 and session.config.v_override == () and session.config.score_override == ()


@pytest.mark.parametrize(
    "text,v,scores",
    [
        ("V[4]=9999", ((4, 9999.0),), ()),
        ("v[ 2 ] = -5", ((2, -5.0),), ()),
        ("V[3-4]=9999", ((3, 9999.0), (4, 9999.0)), ()),
        ("V[future]=9999", ((4, 9999.0),), ()),
        ("V[future]=probe", ((4, PROBE_VALUE),), ()),
        ("S[0,2]=5", (), ((0, 2, 5.0),)),
        ("score[1, 0] = -2.5", (), ((1, 0, -2.5),)),
    ],
)
def test_assignments(text, v, scores):
    session, problem = on(past=3, new=2).assign(text)
    assert problem is None
    assert session.config.v_override == v and session.config.score_override == scores


@pytest.mark.parametrize(
    "text,key",
    [
        ("V4=9999", "tui.x.err.assign_syntax"),
        ("V[4]=lots", "tui.x.err.assign_value"),
        ("V[4]=inf", "tui.x.err.assign_value"),
        ("V[x]=1", "tui.x.err.assign_index"),
        ("V[4-2]=1", "tui.x.err.assign_index"),
        # told in the user's terms (V[5], S[2,0]), not as a v_override entry
        ("V[5]=1", "tui.x.err.assign_index"),  # past + new = 5 keys: 0..4
        ("S[2,0]=1", "tui.x.err.assign_score_range"),  # new = 2 rows: 0..1
        ("S[0]=1", "tui.x.err.assign_score_index"),
    ],
)
def test_bad_assignments_keep_the_session(text, key):
    before = on(past=3, new=2)
    after, problem = before.assign(text)
    assert after is before and problem is not None and problem.key == key
    for lang in LANGS:
        assert problem.message(lang)


def test_no_future_to_probe_with_one_new_query():
    before = on(past=3, new=1)
    after, problem = before.assign("V[future]=9999")
    assert after is before and problem.key == "tui.x.err.no_future"


def test_clear_removes_overrides():
    session, _ = on().assign("V[4]=9999")
    session, problem = session.assign("clear")
    assert problem is None and session.config.v_override == ()


def test_experiments_and_lens_toggle_in_a_fixed_order():
    s = on()
    s, _ = s.toggle_experiment("causal-off")
    s, _ = s.toggle_experiment("leak-probe")
    assert s.experiments == ("leak-probe", "causal-off")
    s, _ = s.toggle_experiment("leak-probe")
    assert s.experiments == ("causal-off",)
    s, _ = s.set_experiment("causal-off", True)
    assert s.experiments == ("causal-off",)
    s, problem = s.toggle_experiment("time-travel")
    assert problem is not None and s.experiments == ("causal-off",)
    s, _ = s.toggle_lens()
    assert s.lens
    s, _ = s.set_lens(False)
    assert not s.lens


def test_explore_mode_on_and_off_keeps_everything_else():
    s = on(past=5)
    s, _ = s.toggle_experiment("offset-bug")
    off, _ = s.toggle_active()
    assert not off.active and off.config == s.config and off.experiments == s.experiments
    back, _ = off.toggle_active()
    assert back == s


def test_load_replaces_the_configuration_and_turns_explore_on():
    s = ExploreSession()
    s2, problem = s.load(ExploreConfig(past=7, new=3))
    assert problem is None and s2.active and s2.config.past == 7


def test_new_session():
    assert not new_session().active
    s = new_session(ExploreConfig(past=1), experiments=("polarity-bug", "leak-probe"), lens=True)
    assert s.active and s.experiments == ("leak-probe", "polarity-bug") and s.lens


def test_shown_values():
    config = ExploreConfig(temperature=0.5, causal=False)
    assert shown_value(config, "temperature") == "0.5"
    assert shown_value(config, "causal") == "off"
    assert shown_value(config, "past") == "3"


def test_the_chapter_experiments_through_the_transitions():
    """The leak probe by hand: V = 9999 at the future key leaves the
    guarded row's output unchanged with the causal mask."""
    s = on(past=3, new=2)
    before = run_experiment("causal-off", s.config)
    s, _ = s.assign("V[future]=9999")
    after = run_experiment("causal-off", s.config)
    # q3 (row 0) cannot see k4: its causal output is the same ...
    assert before.causal_result.outputs[0] == after.causal_result.outputs[0]
    # ... and with the causal rule off it jumps.
    assert abs(after.off_result.outputs[0][0] - before.off_result.outputs[0][0]) > 100
    for name in EXPERIMENTS:
        run_experiment(name, s.config)


def test_the_session_module_does_not_import_textual_or_rich():
    code = (
        "import sys, maskattn_tui.explore.session; "
        "bad = [m for m in ('textual', 'rich') if m in sys.modules]; "
        "sys.exit(1 if bad else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
