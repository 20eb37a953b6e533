"""A pane's scrollbar is repainted when its pane changes, not on every
layout pass of the screen (a toast, a layout elsewhere), and still tells
the truth after a real change."""

from __future__ import annotations

from textual.scrollbar import ScrollBar

from maskattn_tui.tui import make_app


def count_refreshes(bar: ScrollBar) -> list:
    calls: list = []
    original = bar.refresh

    def refresh(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    bar.refresh = refresh
    return calls


async def test_a_layout_elsewhere_does_not_repaint_a_pane_scrollbar():
    app = make_app(dwell=10.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        explain = app.query_one("#explain")
        assert explain.virtual_size.height > explain.scrollable_content_region.height  # it scrolls
        calls = count_refreshes(explain.vertical_scrollbar)
        app.notify("a toast lays out the screen")
        await pilot.pause()
        app.screen.refresh(layout=True)
        await pilot.pause()
        assert calls == []


async def test_a_pane_scrollbar_follows_a_real_change():
    app = make_app(dwell=10.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        explain = app.query_one("#explain")
        bar = explain.vertical_scrollbar
        calls = count_refreshes(bar)
        heights = set()
        for action in ("L", (100, 36), "L", (90, 30)):
            if isinstance(action, tuple):
                await pilot.resize_terminal(*action)
            else:
                await pilot.press(action)
            await pilot.pause()
            await pilot.pause()
            heights.add(explain.virtual_size.height)
            # The scrollbar shows the pane as it is now.
            assert bar.window_virtual_size == explain.virtual_size.height, action
            assert bar.window_size == explain.scrollable_content_region.height, action
        assert len(heights) > 1  # the changes did change the pane's height
        assert calls  # and repainted its scrollbar
