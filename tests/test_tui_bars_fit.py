"""The weights pane at the walkthrough's sizes: every step's bars fit the
pane whole (no scrollbar, no last line cut), the closing note ("weights
over positions, not factual confidence") shown at every step of a size or
at none, left out only where keeping it would not fit step 4's two groups.
At 80x24 the pane is each step's own height (tui.step_fit), at most 12
lines (11 under its title): step 4's bars take 11 lines without the note
and 14 in English, 13 in Chinese with it, so the note is left out at every
step, also at steps 1-3, whose bars would hold it (9 and 8 lines). At
100x30 (at most 19 lines in English) step 4 takes 12 with it."""

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
