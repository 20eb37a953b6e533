"""The focused control of the explore panel is marked by an attribute
(reverse video, or bold underline in a text box), never by a shade alone:
so it shows under 16 colours and NO_COLOR too. Walks every control with
Tab, as a keyboard user does, and reads the screen as drawn."""

from __future__ import annotations

import pytest
from textual.widgets import Checkbox, Input, Select

from maskattn_tui.cli.export import settle
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.tui import make_app


def marked(app, widget) -> bool:
    """Some cell of `widget`'s region is drawn reverse, or bold and
    underlined, or the focus pointer (▸, > in ASCII) is drawn in it."""
    region = widget.region
    strips = app.screen._compositor.render_strips()
    for y in range(region.y, region.bottom):
        x = 0
        for segment in strips[y]:
            end = x + segment.cell_length
            style = segment.style
            inside = x < region.right and end > region.x and segment.text.strip()
            if inside and style is not None and (style.reverse or (style.bold and style.underline)):
                return True
            if inside and isinstance(widget, Checkbox) and segment.text.startswith(("▸", ">")):
                return True
            x = end
    return False


@pytest.mark.parametrize("colors", ["truecolor", "16", "none"])
async def test_every_panel_control_shows_its_focus(monkeypatch, colors):
    """In truecolor every control Tab reaches is checked, the walk ending
    where it began; under 16 colours and NO_COLOR the mark is the widget
    class's, so the walk ends once one of each kind is checked (each Tab
    repaints the panel: ~80 ms of CPU). The order Tab walks in does not
    depend on the colours: the truecolor walk checks it."""
    if colors == "none":
        monkeypatch.setenv("NO_COLOR", "1")
    elif colors == "16":
        monkeypatch.setenv("TEXTUAL_COLOR_SYSTEM", "standard")
    app = make_app(explore=ExploreConfig())
    kinds_of = (Select, Input, Checkbox)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        seen, kinds = set(), set()
        for _ in range(40):
            await pilot.press("tab")
            widget = app.focused
            while widget is not None and not isinstance(widget, kinds_of):
                widget = widget.parent  # a Select's overlay: the Select
            assert widget is not None, app.focused
            if widget.id in seen:
                break
            seen.add(widget.id)
            kind = next(k for k in kinds_of if isinstance(widget, k))
            if colors != "truecolor" and kind in kinds:
                continue  # the mark is the widget class's: under 16 colours and NO_COLOR, one of each kind
            kinds.add(kind)
            widget.scroll_visible(animate=False, immediate=True)
            await pilot.pause()  # the scroll drawn (the focus style was, with the key)
            assert marked(app, widget), widget.id
            if colors != "truecolor" and len(kinds) == len(kinds_of):
                break
        assert kinds == set(kinds_of)
        if colors == "truecolor":
            assert {"x-preset", "x-past", "x-pad-side", "x-causal", "x-lens"} <= seen
            assert widget.id == "x-preset", widget.id  # the walk came back to the first control
