"""Every kind of terminal, as text dumps of the real screen (make_app +
run_test): ASCII mode is pure ASCII and keeps every meaning; under NO_COLOR
the screen has no hue and still says everything in words and glyphs; on a
16-colour terminal the four cell kinds keep four different backgrounds and
no text becomes invisible."""

from __future__ import annotations

import pytest
from rich.color import ColorSystem

from maskattn_tui.cli.export import screen_text, settle
from maskattn_tui.tui import make_app

CELL_GLYPHS = {"✓": "allowed", "F": "future", "P": "pad", "FP": "future+pad"}


async def dump(app, size, keys=()):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
        await settle(pilot)
        return screen_text(app), app.screen._compositor.render_strips()


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("keys", [(), ("z",)], ids=["", "z"])
async def test_every_step_in_ascii_is_pure_ascii(size, keys):
    # One app walked through the five steps (→), as a reader does; each
    # step's first paint is in the snapshots (test_tui_snapshots.py).
    app = make_app(step=1, lang="en", ascii=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
        for step in range(1, 6):
            await settle(pilot)
            assert app.model.player.step == step
            text = screen_text(app)
            assert text.isascii(), (step, {c for c in text if not c.isascii()})
            await pilot.press("right")


ASCII_CASES = [
    pytest.param(2, (80, 24), ("question_mark",), id="80x24-help"),
    pytest.param(2, (160, 48), (), id="160x48-wide"),
    pytest.param(2, (50, 20), (), id="50x20-too-small"),
    # explore mode: its panel's border, [X] ticks, v arrows of the selects
    pytest.param(1, (100, 30), ("e", "1", "a"), id="100x30-explore"),
    pytest.param(1, (80, 24), ("e", "question_mark"), id="80x24-explore-help"),
    pytest.param(1, (160, 48), ("e", "2"), id="160x48-explore"),
]


@pytest.mark.parametrize("step,size,keys", ASCII_CASES)
async def test_ascii_screen_is_pure_ascii(step, size, keys):
    text, _ = await dump(make_app(step=step, lang="en", ascii=True), size, keys)
    assert text.isascii(), {c for c in text if not c.isascii()}


async def test_ascii_keeps_every_meaning():
    text, _ = await dump(make_app(step=2, lang="en", ascii=True), (100, 30))
    for word in ("allowed", "future", "PAD", "blocked"):
        assert word in text
    assert "   q0     | +   F   F" in text  # q0: allowed, future, future
    assert " >* q1     | +   +   F" in text  # focus and selected row marks
    assert "3 valid positions | causal" in text  # separators stay separators
    assert "sum p*v" in text and "0.3302*10" in text  # and products stay products
    text4, _ = await dump(make_app(step=4, lang="en", ascii=True), (100, 30))
    assert "-inf" in text4 and "sum" in text4 and "#" in text4  # additive mask, denominator, bars
    assert "L Chinese" in text4  # the language key, spelled out


@pytest.mark.parametrize("step", range(1, 6))
async def test_no_color_has_no_hue_and_keeps_the_words(monkeypatch, step):
    monkeypatch.setenv("NO_COLOR", "1")
    text, strips = await dump(make_app(step=step, lang="en"), (100, 30))
    for strip in strips:
        for segment in strip:
            style = segment.style
            for color in (style and style.color, style and style.bgcolor):
                if color is not None and not color.is_default:
                    r, g, b = color.get_truecolor()
                    assert r == g == b, (segment.text, color)
    assert f"{step} / 5" in text and "✓" in text and " F " in text
    assert step == 4 or "allowed" in text  # the legend (step 4 shows the score table instead)


def cell_colors(strips):
    """glyph -> the set of (background, foreground) 16-colour numbers."""
    seen: dict[str, set] = {}
    for strip in strips:
        for segment in strip:
            glyph, style = segment.text.strip(), segment.style
            if glyph in CELL_GLYPHS and style is not None and style.bgcolor is not None:
                bg = style.bgcolor.downgrade(ColorSystem.STANDARD).number
                fg = style.color.downgrade(ColorSystem.STANDARD).number if style.color else None
                seen.setdefault(glyph, set()).add((bg, fg))
    return seen


@pytest.mark.parametrize("step", [2, 5])
async def test_16_colours_keep_the_cell_kinds_apart(step):
    _, strips = await dump(make_app(step=step, lang="en"), (100, 30))
    seen = cell_colors(strips)
    assert {"✓", "F", "P"} <= set(seen)
    backgrounds = {glyph: {bg for bg, _ in pairs} for glyph, pairs in seen.items()}
    for glyph, bgs in backgrounds.items():
        assert len(bgs) == 1, (glyph, bgs)
    assert len({next(iter(b)) for b in backgrounds.values()}) == len(backgrounds)
    assert all(fg != bg for pairs in seen.values() for bg, fg in pairs)


async def test_no_text_vanishes_when_colours_are_reduced():
    # Each step's screen once (one app, → between), each style downgraded to
    # 16 and to 256 colours: no foreground becomes its background.
    app = make_app(step=1, lang="en")
    async with app.run_test(size=(100, 30)) as pilot:
        for step in range(1, 6):
            await settle(pilot)
            assert app.model.player.step == step
            for strip in app.screen._compositor.render_strips():
                for segment in strip:
                    style = segment.style
                    if not segment.text.strip() or style is None or style.reverse:
                        continue
                    if style.color is None or style.bgcolor is None:
                        continue
                    for system in (ColorSystem.STANDARD, ColorSystem.EIGHT_BIT):
                        fg, bg = style.color.downgrade(system), style.bgcolor.downgrade(system)
                        assert fg.get_truecolor() != bg.get_truecolor(), (step, system, segment.text, style)
            await pilot.press("right")
