"""The player's step-state machine: every transition from every reachable state."""

import math

import pytest

from maskattn_tui.model.step_machine import (
    DWELL_LADDER, DWELL_MAX, DWELL_MIN, PlayerState, StepShape, new_player,
)

# F12's shapes: three 3-row steps focused on rows 0, 1, 2; one 1-row; one 2-row.
SHAPES = (StepShape(3, 0), StepShape(3, 1), StepShape(3, 2), StepShape(1, 0), StepShape(2, 0))

TRANSITIONS = {
    "next": lambda s: s.next(),
    "prev": lambda s: s.prev(),
    "first": lambda s: s.first(),
    "last": lambda s: s.last(),
    "toggle_play": lambda s: s.toggle_play(),
    "tick": lambda s: s.tick(),
    "slower": lambda s: s.slower(),
    "faster": lambda s: s.faster(),
    "up": lambda s: s.move_row(-1),
    "down": lambda s: s.move_row(1),
    "lang": lambda s: s.toggle_language(),
    **{f"goto{k}": (lambda k: lambda s: s.goto(k))(k) for k in range(-1, 8)},
    **{f"row{r}": (lambda r: lambda s: s.select_row(r))(r) for r in range(-1, 4)},
    "goto-str": lambda s: s.goto("3"),
    "goto-bool": lambda s: s.goto(True),
    "dwell-nan": lambda s: s.set_dwell(math.nan),
    "dwell-big": lambda s: s.set_dwell(99),
    "dwell-small": lambda s: s.set_dwell(0.01),
    "lang-fr": lambda s: s.set_language("fr"),
}


def reachable():
    start = new_player(SHAPES)
    seen, todo = {start}, [start]
    while todo:
        state = todo.pop()
        for f in TRANSITIONS.values():
            nxt = f(state)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


STATES = reachable()


def valid(s: PlayerState) -> bool:
    return (
        1 <= s.step <= len(SHAPES)
        and 0 <= s.row < SHAPES[s.step - 1].rows
        and DWELL_MIN <= s.dwell <= DWELL_MAX
        and s.lang in ("en", "zh")
        and not (s.playing and s.step == len(SHAPES))
    )


def test_many_states_reached_and_all_valid():
    assert len(STATES) > 200
    assert all(valid(s) for s in STATES)


@pytest.mark.parametrize("name", sorted(TRANSITIONS))
def test_every_transition_from_every_state_is_valid(name):
    for s in STATES:
        assert valid(TRANSITIONS[name](s))


def test_starts_still_at_step_one():
    s = new_player(SHAPES)
    assert (s.step, s.playing, s.row, s.dwell) == (1, False, 0, 2.0)


def test_manual_steps_pause_and_reset_row_to_focus():
    s = new_player(SHAPES).toggle_play()
    assert s.playing
    s = s.next()
    assert (s.step, s.playing, s.row) == (2, False, 1)
    s = s.toggle_play().prev()
    assert (s.step, s.playing, s.row) == (1, False, 0)
    for manual in ("first", "last", "goto3"):
        t = new_player(SHAPES, step=2).toggle_play()
        assert not TRANSITIONS[manual](t).playing


def test_playback_advances_per_tick_and_stops_at_the_last_step():
    s = new_player(SHAPES).toggle_play()
    steps = [s.step]
    for _ in range(10):
        s = s.tick()
        steps.append(s.step)
    assert steps[:5] == [1, 2, 3, 4, 5]
    assert set(steps[5:]) == {5}
    assert not s.playing


def test_tick_while_still_does_nothing():
    s = new_player(SHAPES, step=2)
    assert s.tick() == s


def test_play_at_last_restarts_from_step_one():
    s = new_player(SHAPES).last().toggle_play()
    assert (s.step, s.playing, s.row) == (1, True, 0)


def test_edges_are_noops():
    first = new_player(SHAPES)
    assert first.prev() == first
    last = first.last()
    assert last.next() == last
    assert first.goto(0) == first and first.goto(6) == first
    assert first.select_row(3) == first and first.select_row(-1) == first


def test_dwell_bounds_and_ladder():
    s = new_player(SHAPES)
    assert s.set_dwell(99).dwell == DWELL_MAX
    assert s.set_dwell(0.01).dwell == DWELL_MIN
    assert s.set_dwell(math.inf) == s
    up = [s.dwell]
    while (t := s.slower()) != s:
        s = t
        up.append(s.dwell)
    assert up == [d for d in DWELL_LADDER if d >= 2.0]
    assert s.dwell == DWELL_MAX and s.slower() == s
    while (t := s.faster()) != s:
        s = t
    assert s.dwell == DWELL_MIN


def test_language_switch_keeps_step_and_row():
    s = new_player(SHAPES, step=3).move_row(-1)
    z = s.toggle_language()
    assert (z.step, z.row, z.lang) == (3, 1, "zh")
    assert z.toggle_language() == s


def test_new_player_options():
    s = new_player(SHAPES, step=4, lang="zh", dwell=0.5, playing=True)
    assert (s.step, s.lang, s.dwell, s.playing, s.row) == (4, "zh", 0.5, True, 0)
    assert not new_player(SHAPES, step=5, playing=True).playing
    with pytest.raises(ValueError):
        new_player(())
