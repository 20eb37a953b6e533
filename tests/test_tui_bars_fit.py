"""The weights pane at the walkthrough's sizes: every step's bars fit the
pane whole (no scrollbar, no last line cut), the closing note ("weights
over positions, not factual confidence") left out at every step only
where keeping it would not fit step 4's two groups (at 80x24 in both
languages: the pane is 11 lines there since issue 20 point 6, and step 4's
bars take 11 in Chinese without the note, 13 with it)."""

from __future__ import annotations

import pytest

from maskattn_tui.tui import make_app
from maskattn_tui.tui.widgets.bars import BarsView

from helpers import text_of

NOTE = {"en": "factual confidence", "zh": "事实置信度"}


@pytest.mark.parametrize("lang,size,note", [("en", (80, 24), False), ("zh", (80, 24), False),
                                            ("en", (100, 30), True), ("en", (160, 48), True)])
async def test_every_step_fits_the_weights_pane(lang, size, note):
    app = make_app(lang=lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        bars = app.screen.query_one(BarsView)
        for step in range(5):
            assert bars.virtual_size.height <= bars.scrollable_content_region.height, step
            assert not bars.show_vertical_scrollbar or bars.max_scroll_y == 0, step
            shown = text_of(bars).replace("\n", "")
            assert "p·v =" in shown, step  # the output, the block's last number
            assert (NOTE[lang].replace(" ", "") in shown.replace(" ", "")) == note, step  # wrapped anywhere
            await pilot.press("right")
            await pilot.pause()
