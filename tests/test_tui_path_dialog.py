"""The open and save dialogs as a user types in them: the path shown is
selected (typing replaces it), the next `o` shows the last path opened, an
empty path is a notice (the dialog stays), Tab completes the path."""

from __future__ import annotations

import numpy as np
import pytest
from textual.widgets import Input, Static

from maskattn_tui.cli.export import settle
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.i18n import t
from maskattn_tui.tui import make_app
from maskattn_tui.tui.mask_screen import MaskScreen
from maskattn_tui.tui.path_complete import complete_path
from maskattn_tui.tui.scenario_dialogs import PathDialog
from test_tui_explore import recorded


@pytest.fixture
def folder(tmp_path):
    np.save(tmp_path / "sliding_w3.npy", np.tril(np.ones((4, 4), dtype=bool)))
    np.save(tmp_path / "sliding_w4.npy", np.tril(np.ones((5, 5), dtype=bool)))
    (tmp_path / "solo.toml").write_text("past = 2\n", "utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").write_text("", "utf-8")
    return tmp_path


async def open_dialog(pilot) -> Input:
    await pilot.press("o")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PathDialog)
    return pilot.app.screen.query_one("#path", Input)


async def test_typing_replaces_the_path_shown(folder, monkeypatch):
    monkeypatch.chdir(folder)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        box = await open_dialog(pilot)
        assert box.value == "maskattn-scenario.toml" and box.selected_text == box.value
        await pilot.press(*"sliding_w3.npy")
        assert box.value == "sliding_w3.npy"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MaskScreen)


async def test_the_next_o_shows_the_last_path_opened(folder):
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        box = await open_dialog(pilot)
        box.value = str(folder / "sliding_w4.npy")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MaskScreen)
        box = await open_dialog(pilot)  # o in mask mode
        assert box.value == str(folder / "sliding_w4.npy") and box.selected_text == box.value
        box.value = str(folder / "solo.toml")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("escape")  # back from mask mode... to the scenario opened
        await settle(pilot)
        box = await open_dialog(pilot)
        assert box.value == str(folder / "solo.toml")


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_an_empty_path_is_a_notice_and_the_dialog_stays(lang):
    app = make_app(lang=lang, explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        seen = recorded(app)
        for key in ("o", "s"):
            await pilot.press(key)
            await settle(pilot)
            box = app.screen.query_one("#path", Input)
            box.value = "   "
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, PathDialog)
            assert seen[-1] == t("tui.x.dialog.empty", lang)
            await pilot.press("escape")
            await settle(pilot)


def test_completion_of_names(folder):
    base = str(folder) + "/"
    assert complete_path(base + "so") == (base + "solo.toml", [])
    assert complete_path(base + "sl") == (base + "sliding_w", ["sliding_w3.npy", "sliding_w4.npy"])
    assert complete_path(base + "su") == (base + "sub/", [])
    assert complete_path(base + "zz") == (base + "zz", [])
    assert complete_path(base + ".h") == (base + ".hidden", [])  # hidden names only when asked for
    assert ".hidden" not in complete_path(base)[1]
    assert complete_path(str(folder / "nowhere" / "x")) == (str(folder / "nowhere" / "x"), [])


async def test_tab_completes_in_the_dialog(folder):
    app = make_app(explore=ExploreConfig())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        box = await open_dialog(pilot)
        box.value = str(folder / "sl")
        box.cursor_position = len(box.value)
        await pilot.press("tab")
        await settle(pilot)
        assert box.value == str(folder / "sliding_w") and app.screen.focused is box
        assert "sliding_w3.npy" in str(app.screen.query_one("#choices", Static).render())
        await pilot.press("4", "tab")
        await settle(pilot)
        assert box.value == str(folder / "sliding_w4.npy")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MaskScreen)
