"""Mask mode's state under any sequence of what its keys (and resizes) do:
what tests/test_tui_mask.py's random-key run checks on screen, checked on
MaskState alone, so that many sequences run and a failing one shrinks."""

from __future__ import annotations

from hypothesis import given, strategies as st

from helpers import seeded
from maskattn_tui.model.mask_model import new_state

#: (name, transition); the screen's actions call exactly these.
MASK_STEPS = [
    ("up", lambda s: s.move(-1, 0)),
    ("down", lambda s: s.move(1, 0)),
    ("left", lambda s: s.move(0, -1)),
    ("right", lambda s: s.move(0, 1)),
    ("bigger", lambda s: s.resize(1)),
    ("smaller", lambda s: s.resize(-1)),
    ("auto", lambda s: s.toggle_auto()),
    ("drill", lambda s: s.drill()),
    ("back", lambda s: s.back()),
    *[(f"room {r}x{c}", (lambda r, c: lambda s: s.with_fit(r, c))(r, c))
      for r, c in [(4, 4), (12, 20), (40, 60), (0, 0)]],
]


def check(state) -> None:
    rows, cols = state.shape
    assert 0 <= state.row < rows and 0 <= state.col < cols
    assert state.size in state.sizes
    r, c = state.place
    assert 0 <= r < state.rows and 0 <= c < state.keys
    r0, r1, c0, c1 = state.span
    assert r0 == r < r1 <= state.rows and c0 == c < c1 <= state.keys
    if state.window is not None:
        w0, w1, v0, v1 = state.window
        assert 0 <= w0 < w1 <= state.rows and 0 <= v0 < v1 <= state.keys
        assert w1 - w0 <= state.size and v1 - v0 <= state.size  # one block's cells


@seeded(200)
@given(shape=st.sampled_from([(300, 1000), (1, 1), (7, 5000), (4096, 4096)]),
       steps=st.lists(st.sampled_from(range(len(MASK_STEPS))), min_size=10, max_size=60))
def test_any_sequence_of_mask_keys_keeps_the_selection_inside(shape, steps):
    state = new_state(*shape, 12, 20)
    check(state)
    for i in steps:
        name, transition = MASK_STEPS[i]
        before, state = state, transition(state)
        check(state)
        if name == "back" and before.window is not None:  # the block the cell is in
            assert state.window is None and state.place == (before.place[0] // state.size * state.size,
                                                            before.place[1] // state.size * state.size)
