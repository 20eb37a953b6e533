"""Bursts of keys that broke the app (issue 21, points 11, 16, 17, 18):
each as a user types it, with nothing waited for between the keys."""

from __future__ import annotations

import pytest

from maskattn_tui.cli.export import settle
from maskattn_tui.tui import make_app
from maskattn_tui.tui.app import MaskattnApp
from maskattn_tui.tui.palette import SafeCommandPalette

from helpers import searched, send_key


async def test_the_palette_dismissed_twice_keeps_the_screen_under_it():
    """Two Enters in one burst: Textual's palette dismissed itself once per
    Enter, and the second popped the figure's screen (ScreenStackError)."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        palette = app.screen
        assert isinstance(palette, SafeCommandPalette)
        palette.dismiss()
        palette.dismiss()  # the second Enter's, before the first pop is done
        await settle(pilot)
        assert app.is_running and app.return_code is None
        assert app.screen is app.main_screen and len(app.screen_stack) == 1
        await pilot.press("right")
        assert app.model.player.step == 2  # the figure's keys work again


async def test_a_palette_command_runs_once_for_several_enters(monkeypatch):
    calls = []
    zoom = MaskattnApp.action_zoom
    monkeypatch.setattr(MaskattnApp, "action_zoom", lambda self: (calls.append(1), zoom(self)))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        for key in "enlarge":
            send_key(app, key)
        await searched(pilot)  # the palette's hits listed
        for key in ("enter", "enter", "enter"):  # one burst: nothing waited for between the Enters
            send_key(app, key)
        await settle(pilot)
        assert calls == [1] and app.model.zoomed
        assert app.screen is app.main_screen


async def test_space_then_e_in_one_burst_leaves_no_focus_in_the_hidden_panel():
    from textual import events

    from maskattn_tui.explore.config import ExploreConfig

    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.query_one("#x-preset").focus()
        await settle(pilot)
        before = app.model.session.config
        # one burst: both keys queued before either is handled
        app.post_message(events.Key("space", " "))
        app.post_message(events.Key("e", "e"))
        await settle(pilot)
        assert app.model.mode == "figure"
        assert app.focused is None
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.model.session.config == before  # nothing changed unseen
        assert app.model.player.row == 1 or app.model.player.rows == 1  # ↓ went to the figure


async def test_the_same_refused_text_twice_shows_the_kept_value():
    from textual.widgets import Input

    from maskattn_tui.explore.config import ExploreConfig

    app = make_app(explore=ExploreConfig())  # one app: each text refused three times in a row
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        box = app.query_one("#x-past", Input)
        for text in ("abc", "99", "-1"):
            box.focus()
            await settle(pilot)
            for n in range(3):
                # typed as the driver queues it, one wait for the lot: the
                # refusal is the subject here, not the keys one by one
                for key in (*text, "enter"):
                    send_key(app, key)
                await settle(pilot)
                assert app.model.session.config.past == 3, (text, n)
                assert box.value == "3", (text, n, box.value)
            await pilot.press("tab")
            await settle(pilot)
            assert box.value == "3", text


@pytest.mark.parametrize("second", ["question_mark", "o", "ctrl+p"])
async def test_the_panel_is_whole_after_a_dialog_that_came_with_the_first_e(second):
    from textual.widgets import Input

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("e", second)
        await settle(pilot)
        # the race seen in issue 21 (point 18): the panel's mount lost under the dialog
        for panel in app.main_screen.query("#controls"):
            await panel.remove()
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main_screen and app.model.mode == "explore"
        panel = app.main_screen.query_one("#controls")
        assert panel.region.area > 0
        assert app.main_screen.query_one("#x-past", Input).value == "3"
        assert app.main_screen.query_one("#x-new", Input).value == "2"
