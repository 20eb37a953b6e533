"""The save and open dialogs with odd paths (issue 12): a NUL, file names
that look like Rich markup, a folder, /dev/zero - a message, never a
traceback, and the configuration on screen kept."""

from __future__ import annotations

from textual.widgets import Input, Static

from maskattn_tui.explore import ExploreConfig, load_scenario
from maskattn_tui.tui import make_app
from maskattn_tui.tui.scenario_dialogs import ConfirmDialog, PathDialog

from helpers import recorded


async def answer(pilot, key: str, path: str) -> None:
    await pilot.press(key)
    await pilot.pause()
    assert isinstance(pilot.app.screen, PathDialog)
    pilot.app.screen.query_one("#path", Input).value = path
    await pilot.press("enter")
    await pilot.pause()


async def test_a_nul_in_the_save_or_open_path_is_a_message(tmp_path):
    config = ExploreConfig(past=2, new=2)
    app = make_app(explore=config)
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        await answer(pilot, "s", str(tmp_path / "x\0y.toml"))
        await answer(pilot, "o", str(tmp_path / "x\0y.toml"))
        assert len(seen) == 2 and all("NUL" in m for m in seen), seen
        assert app.model.session.config == config and len(app.screen_stack) == 1


async def test_dev_zero_in_the_open_dialog_is_a_message():
    config = ExploreConfig(past=1, new=3)
    app = make_app(explore=config)
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        await answer(pilot, "o", "/dev/zero")
        assert seen and "not a regular file" in seen[-1] and app.model.session.config == config


async def test_file_names_that_look_like_markup_are_shown_as_they_are(tmp_path):
    app = make_app(explore=ExploreConfig(past=4))  # one app, a save per name
    async with app.run_test(size=(100, 30)) as pilot:
        for name in ("a[/]b.toml", "[b]bold[/b].toml"):
            path = tmp_path / name  # "a[/]b.toml" is b.toml in the folder "a["
            path.parent.mkdir(exist_ok=True)
            path.write_text("past = 1\n")
            await answer(pilot, "s", str(path))
            dialog = app.screen
            assert isinstance(dialog, ConfirmDialog)
            shown = str(dialog.query_one(Static).render())
            assert name in shown, shown
            await pilot.press("y")
            await pilot.pause()
            assert load_scenario(path).past == 4 and len(app.screen_stack) == 1


async def test_a_folder_gets_a_reason_not_the_replace_question(tmp_path):
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        await answer(pilot, "s", str(folder))
        assert not isinstance(app.screen, ConfirmDialog)
        assert seen and "directory" in seen[-1]
