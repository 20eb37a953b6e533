"""The explore panel's pattern controls, driven as a user would: every
schema field has a control, presets apply, a refused value stays selected
so typing replaces it, and text boxes are checked by the session (no
Input(type=...) restrict regex)."""

from __future__ import annotations

import time

from textual.widgets import Input, Select

from maskattn_tui.explore import ExploreConfig
from maskattn_tui.explore.fields import PANEL_FIELDS
from maskattn_tui.tui import make_app

from helpers import problem_text, type_into


async def test_every_schema_field_has_a_control_and_text_boxes_have_no_type():
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        for f in PANEL_FIELDS:
            widget = app.query_one("#x-" + f.name.replace("_", "-"))
            if f.control == "input":
                assert isinstance(widget, Input) and widget.type == "text" and widget.restrict is None


async def test_a_preset_applies_and_a_field_change_unmatches_it():
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.query_one("#x-preset", Select).value = "draft-tree"
        await pilot.pause()
        await pilot.pause()
        assert app.model.session.config.tree == (-1, 0, 0, 1, 2)
        assert app.query_one("#x-tree", Input).value == "-1,0,0,1,2"
        assert app.model.views[0].table.query_position_ids == (3, 4, 4, 5, 5)
        await type_into(pilot, "x-past", "4")  # the tree needs new = 5: past alone is fine
        assert app.model.session.config.past == 4
        assert app.query_one("#x-preset", Select).value == Select.NULL


async def test_a_refused_value_comes_back_selected_with_the_reason():
    app = make_app(explore=ExploreConfig(past=4, new=2, window=3))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await type_into(pilot, "x-window", "0")
        box = app.query_one("#x-window", Input)
        assert app.model.session.config.window == 3 and box.value == "3"
        assert "window must be from 1 to 64" in problem_text(app)
        assert (box.selection.start, box.selection.end) == (0, 1)  # cursor at the end, all selected
        await pilot.press("5", "enter")  # typing replaces the kept value
        await pilot.pause()
        assert app.model.session.config.window == 5


async def test_long_digit_runs_do_not_freeze_the_box():
    # Input(type="number")'s restrict regex backtracks exponentially (17 digits then x: ~1.5 s)
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        start = time.process_time()  # this process's CPU: a loaded machine's waits do not count
        await type_into(pilot, "x-temperature", "1" * 24 + "x")
        assert time.process_time() - start < 3.0
        assert app.model.session.config.temperature == 1.0
        assert "must be a number" in problem_text(app)


async def test_the_v_placeholder_is_valid_for_the_configuration():
    app = make_app(explore=ExploreConfig(past=0, new=2))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        placeholder = app.query_one("#x-assign", Input).placeholder
        assert placeholder == "V[1]=9999"
        s, problem = app.model.session.assign(placeholder)
        assert problem is None


async def test_the_family_fields_are_set_from_the_panel():
    # the rules --expect states (issue 16) are typed in the panel too, and a bad run is refused whole
    app = make_app(explore=ExploreConfig(past=0, new=6))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await type_into(pilot, "x-bidirectional", "2-4")
        assert app.model.session.config.bidirectional == ((2, 4),)
        table = app.model.views[0].table
        # q2 reads k4 inside its block, q1 still may not read k2 (causal outside the block)
        assert table.reasons[2][4] == () and "future" in table.reasons[1][2]
        await type_into(pilot, "x-pad-keys", "1-x")
        assert app.model.session.config.pad_keys is None
        assert "must be positions or runs" in problem_text(app)
        await type_into(pilot, "x-cache-slots", "2")
        assert app.model.session.config.cache_slots == 2
