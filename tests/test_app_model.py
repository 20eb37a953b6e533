"""The app model and the command table, without Textual (model/ is pure)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.experiments import EXPERIMENTS
from maskattn_tui.explore.session import ExploreSession, new_session
from maskattn_tui.lesson.f12 import load_f12
from maskattn_tui.lesson.stepview import build_view
from maskattn_tui.model.app_model import AppModel, explored_views, new_model
from maskattn_tui.model.commands import (
    COMMANDS, EXPLORE, FIGURE, action_available, footer_entries, footer_fit, palette_commands,
)
from maskattn_tui.model.step_machine import DWELL_MAX, DWELL_MIN, PlayerState, new_player, shape_of
from maskattn_tui.i18n import LANGS
from helpers import seeded


def lesson_model(**player) -> AppModel:
    figure = load_f12()
    views = tuple(build_view(s, 5) for s in figure.steps)
    return new_model(views, new_player(tuple(shape_of(s) for s in figure.steps), **player), ExploreSession())


def test_the_model_imports_neither_textual_nor_rich():
    code = ("import sys, maskattn_tui.model.app_model, maskattn_tui.model.commands;"
            "print(any(m.split('.')[0] in ('textual', 'rich') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_entering_and_leaving_explore_keeps_the_figure_where_it_was():
    model = lesson_model(step=3, lang="zh").with_player(lambda p: p.move_row(-1))
    assert (model.player.step, model.player.row) == (3, 1)
    explored = model.explore(ExploreSession.toggle_active)
    assert explored.mode == "explore" and explored.player.steps == 1
    assert explored.figure_player == model.player
    assert explored.lang == "zh"  # the language is a view setting, kept
    # the language changes while exploring: the figure comes back in it
    explored = explored.with_player(PlayerState.toggle_language)
    back = explored.explore(ExploreSession.toggle_active)
    assert back.mode == "figure" and back.figure_player is None
    assert (back.player.step, back.player.row, back.player.lang) == (3, 1, "en")


def test_a_new_configuration_keeps_the_row_where_it_still_exists():
    model = lesson_model().explore(ExploreSession.toggle_active)
    model = model.explore(lambda s: s.set_field("new", "5")).with_player(lambda p: p.select_row(4))
    assert model.player.row == 4
    kept = model.explore(lambda s: s.set_field("past", "6"))
    assert kept.player.row == 4
    fewer = kept.explore(lambda s: s.set_field("new", "2"))
    assert fewer.player.row == fewer.view.spec.focus_rows[0] and fewer.player.rows == 2


def test_a_refusal_keeps_everything_and_is_recorded():
    model = lesson_model().explore(ExploreSession.toggle_active)
    refused = model.explore(lambda s: s.set_field("past", "40"))
    assert refused.problem is not None
    assert replace(refused, problem=None) == model
    fine = refused.explore(lambda s: s.set_field("past", "4"))
    assert fine.problem is None and fine.session.config.past == 4


def test_views_are_derived_and_cached_per_configuration():
    model = lesson_model().explore(ExploreSession.toggle_active)
    assert model.views is model.views  # one computation per configuration
    assert model.views is explored_views(model.session.config)
    assert lesson_model().views == lesson_model().views


def test_side_pane_and_dwell_limits_are_derived():
    model = lesson_model()
    assert model.side_pane == "explain"
    on = model.explore(ExploreSession.toggle_active).explore(lambda s: s.toggle_experiment("leak-probe"))
    assert on.side_pane == "lab"
    assert lesson_model(dwell=DWELL_MAX).dwell_at_limit == "max"
    assert lesson_model(dwell=DWELL_MIN).dwell_at_limit == "min"
    assert lesson_model(dwell=2.0).dwell_at_limit is None


def test_start_in_explore_mode_keeps_the_figure_to_return_to():
    figure = load_f12()
    views = tuple(build_view(s, 5) for s in figure.steps)
    session = new_session(ExploreConfig(past=2, new=3), ("leak-probe",), False)
    model = new_model(views, new_player(tuple(shape_of(s) for s in figure.steps), step=4), session)
    assert model.exploring and model.player.rows == 3 and model.session.experiments == ("leak-probe",)
    assert model.explore(ExploreSession.toggle_active).player.step == 4


def test_zoom_and_cells_toggle():
    model = lesson_model()
    assert model.toggle_zoom().zoomed and not model.toggle_zoom().toggle_zoom().zoomed
    assert model.toggle_cells(compact_now=True).cells == "full"
    assert model.toggle_cells(compact_now=False).cells == "compact"


@pytest.mark.parametrize("action,figure,explore", [
    ("next", True, False), ("toggle_play", True, False), ("slower", True, False),
    ("row", True, True), ("toggle_explore", True, True), ("help", True, True),
    ("toggle_experiment", False, True), ("save_scenario", False, True), ("toggle_lens", False, True),
])
def test_availability_per_mode(action, figure, explore):
    assert action_available(action, FIGURE) is figure
    assert action_available(action, EXPLORE) is explore


def test_footer_fit_keeps_the_most_important_first():
    entries = footer_entries(FIGURE)
    widths = [10] * len(entries)
    kept = footer_fit(entries, widths, 30)
    assert [e.slot for e in kept] == ["step", "explore", "help"]  # priorities 0, 2, 1, in table order
    everything = footer_fit(entries, widths, 10 * len(entries))
    assert everything == entries


def test_every_palette_command_is_in_the_table_once():
    ids = [c.id for c in COMMANDS]
    assert len(set(ids)) == len(ids)
    for mode in (FIGURE, EXPLORE):
        assert all(mode in c.modes for c in palette_commands(mode))


# -- any sequence of what the keys do ------------------------------------------------------
# What tests/test_tui_explore.py's and test_tui_pilot.py's random-key runs check
# on screen, checked here on the model alone: many sequences, and a failing one
# shrinks to the few steps that break it.

#: (action as the command table names it, the model's transition)
KEY_STEPS = [
    ("prev", lambda m: m.with_player(PlayerState.prev)),
    ("next", lambda m: m.with_player(PlayerState.next)),
    ("first", lambda m: m.with_player(PlayerState.first)),
    ("last", lambda m: m.with_player(PlayerState.last)),
    ("toggle_play", lambda m: m.with_player(PlayerState.toggle_play)),
    ("slower", lambda m: m.with_player(PlayerState.slower)),
    ("faster", lambda m: m.with_player(PlayerState.faster)),
    ("row", lambda m: m.with_player(lambda p: p.move_row(-1))),
    ("row", lambda m: m.with_player(lambda p: p.move_row(1))),
    ("toggle_language", lambda m: m.with_player(PlayerState.toggle_language)),
    ("zoom", lambda m: m.toggle_zoom()),
    ("toggle_explore", lambda m: m.explore(ExploreSession.toggle_active)),
    ("toggle_lens", lambda m: m.explore(ExploreSession.toggle_lens)),
    *[("toggle_experiment", (lambda n: lambda m: m.explore(lambda s: s.toggle_experiment(n)))(name))
      for name in EXPERIMENTS],
    # the panel's text boxes, good values and refused ones
    *[("field", (lambda f, v: lambda m: m.explore(lambda s: s.set_field(f, v)))(field, text))
      for field, text in [("past", "0"), ("past", "5"), ("past", "40"), ("new", "1"), ("new", "4"),
                          ("new", "0"), ("pad", "1"), ("pad", "99"), ("temperature", "0.5"),
                          ("temperature", "0")]],
    ("tick", lambda m: m.with_player(PlayerState.tick) if m.player.playing else m),  # the timer runs only then
]


def allowed(action: str, model: AppModel) -> bool:
    """Whether the app lets this key act in the model's mode (the panel's
    boxes exist in explore mode only; the timer ticks in any mode)."""
    if action == "field":
        return model.exploring
    return action == "tick" or action_available(action, model.mode)


@seeded(200)
@given(steps=st.lists(st.sampled_from(range(len(KEY_STEPS))), min_size=10, max_size=60))
def test_any_sequence_of_keys_keeps_the_model_consistent(steps):
    model = lesson_model(step=2)
    lang = model.lang
    for i in steps:
        action, transition = KEY_STEPS[i]
        if not allowed(action, model):
            continue
        before, model = model, transition(model)
        p = model.player
        assert 1 <= p.step <= p.steps and 0 <= p.row < p.rows and p.lang in LANGS
        if model.exploring:
            config = model.session.config
            assert p.steps == 1 and len(model.views) == 1 and not p.playing
            assert model.views[0].table.query_positions == config.query_positions and p.rows == config.new
        else:
            assert p.steps == 5 and len(model.views) == 5 and not (p.playing and p.at_last)
        lang = p.lang if action == "toggle_language" else lang
        assert p.lang == lang  # only L changes the language, in or out of explore mode
        if before.exploring and not model.exploring:  # back where the figure was
            assert (p.step, p.row) == (before.figure_player.step, before.figure_player.row)
