"""Mask mode speaks the app model's language: there is one language, so a
change made anywhere (L on mask mode, the app's own toggle, the palette's
entry) shows in mask mode's panes, title and footer at once."""

from __future__ import annotations

import numpy as np

from maskattn_tui.maskmode.saved_doc import open_mask
from maskattn_tui.model.mask_model import MaskState
from maskattn_tui.tui import make_app
from maskattn_tui.tui.mask_screen import MaskScreen
from helpers import text_of


def test_the_mask_state_holds_no_language():
    assert "lang" not in MaskState.__dataclass_fields__


async def test_the_app_models_language_is_mask_modes(tmp_path):
    mask = np.tril(np.ones((6, 6), dtype=bool))
    mask[1, 4] = True
    np.save(tmp_path / "leak.npy", mask)
    app = make_app(mask=open_mask(str(tmp_path / "leak.npy")))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MaskScreen) and "your mask" in text_of(screen.query_one("#mask-grid"))
        app.action_toggle_language()  # the app's own toggle (the palette's entry runs it), not mask mode's key
        await pilot.pause()
        assert app.model.lang == "zh"
        assert "你的掩码" in text_of(screen.query_one("#mask-grid"))
        assert "发现" in text_of(screen.query_one("#mask-explain"))
        assert "English" in str(screen.query_one("#mask-keys").render())  # L: back to English
        await pilot.press("L")  # and mask mode's key is the app's toggle
        await pilot.pause()
        assert app.model.lang == "en" and "your mask" in text_of(screen.query_one("#mask-grid"))
