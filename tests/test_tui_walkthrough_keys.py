"""Issue 35 item 6: in the walkthrough the explore keys (1-7 experiments,
a the API lens) say where they work, instead of doing nothing silently;
in explore mode they still toggle, with no notice."""

from __future__ import annotations

import pytest

from maskattn_tui.i18n import t
from maskattn_tui.tui import make_app


def _notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("key", ["a", "1", "4", "7"])
async def test_the_walkthrough_answers_the_explore_keys(lang, key):
    app = make_app(lang=lang)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        before = app.model
        await pilot.press(key)
        await pilot.pause()
        assert _notices(app) == [t("tui.notice.explore_only", lang)]
        assert app.model == before and app.model.mode == "figure"  # nothing else changed


async def test_in_explore_mode_the_keys_toggle_without_a_notice():
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        app.clear_notifications()
        await pilot.press("2", "a")
        await pilot.pause()
        session = app.model.session
        assert "offset-bug" in session.experiments and session.lens
        assert t("tui.notice.explore_only", "en") not in _notices(app)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_footer_says_pause_while_playing(lang):
    # issue 35 item 7: it said "space play" while the player ran
    app = make_app(lang=lang, dwell=30.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        footer = app.query_one("#keys")

        def text() -> str:
            return str(footer.render())

        play, pause = t("tui.short.play", lang), t("tui.short.pause", lang)
        assert f"space {play}" in text() and f"space {pause}" not in text()
        await pilot.press("space")
        await pilot.pause()
        assert app.model.player.playing
        assert f"space {pause}" in text() and f"space {play}" not in text()
        await pilot.press("space")
        await pilot.pause()
        assert not app.model.player.playing and f"space {play}" in text()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_output_line_is_one_line(lang, size):
    # issue 35 item 7: at 80x24 the weights cut "output = Σ" from "p·v = 10.0000"
    from helpers import text_of
    from test_tui_compact_height import f4, step4_numbers, step5_bars_numbers

    # the chapter's outputs (steps 1-3), step 4's masked mix, step 5's q3
    outputs = [f4(10.0), f4(16.697615493266568), f4(22.55234765226831), step4_numbers()[-1],
               step5_bars_numbers()[-2]]
    app = make_app(lang=lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for step, value in enumerate(outputs, 1):
            lines = text_of(app.query_one("#bars")).splitlines()
            said = [x for x in lines if "p·v" in x]
            assert len(said) == 1 and f"Σ p·v = {value}" in said[0], (step, lines)
            await pilot.press("right")
            await pilot.pause()
