"""Bursts of keys that broke the app (issue 21, points 11, 16, 17, 18):
each as a user types it, with nothing waited for between the keys."""

from __future__ import annotations

from maskattn_tui.cli.export import settle
from maskattn_tui.tui import make_app
from maskattn_tui.tui.app import MaskattnApp
from maskattn_tui.tui.palette import SafeCommandPalette


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
        assert app.state.step == 2  # the figure's keys work again


async def test_a_palette_command_runs_once_for_several_enters(monkeypatch):
    calls = []
    zoom = MaskattnApp.action_zoom
    monkeypatch.setattr(MaskattnApp, "action_zoom", lambda self: (calls.append(1), zoom(self)))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p", *"enlarge", "enter", "enter", "enter")
        await settle(pilot)
        assert calls == [1] and app.model.zoomed
        assert app.screen is app.main_screen
