"""The figure's colours come from the theme through its screen (tui/
themed.py) and follow a change of theme."""

from __future__ import annotations

from textual.color import Color

from maskattn_tui.tui import make_app


def cell_background(view, glyph: str) -> str:
    """The background (hex) of the first cell in `view`'s drawn lines whose
    text holds `glyph`."""
    for y in range(view.size.height):
        for segment in view.render_line(y):
            if glyph in segment.text and segment.style and segment.style.bgcolor:
                return segment.style.bgcolor.triplet.hex
    raise AssertionError(f"no {glyph!r} cell drawn")


async def test_the_grid_takes_its_colours_from_the_theme_and_follows_a_new_one():
    app = make_app(dwell=10.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        grid, allowed = app.query_one("#grid"), app.glyphs.allowed
        for theme in ("textual-dark", "textual-light", "nord"):
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            # The theme's own variable, resolved by Textual: not our palette.
            expected = Color.parse(app.get_css_variables()["success-darken-2"]).hex.lower()
            assert cell_background(grid, allowed) == expected, theme
