"""Caches the Textual way: declared, keyed by values (never by id(), which
a new object may reuse once the old one is gone), and the theme's palette
read again after a style update."""

from __future__ import annotations

import ast
import re

from textual.color import Color

from maskattn_tui.tui import make_app
from maskattn_tui.tui.themed import themed_palette
from test_dead_names import ROOT

#: Folders where an id() is a cache key (capture/ tracks live torch modules
#: and tensors by id, each checked against a weak reference).
KEYED = ("tui", "render", "model", "doctor", "scale", "lesson", "explore", "engine", "cli")


def test_no_hidden_dict_caches_and_no_id_keys():
    found = []
    for folder in KEYED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Attribute) and node.attr == "__dict__":
                    found.append(f"{where} __dict__")
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id":
                    found.append(f"{where} id()")
    assert found == []


async def test_a_style_update_reaches_the_palette_without_a_new_theme():
    app = make_app(dwell=10.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        grid = app.query_one("#grid")
        before = themed_palette(grid, app.glyphs).style("allowed").bgcolor
        app.stylesheet.add_source("FigureScreen > .mask--allowed { background: #123456; }")
        app.refresh_css(animate=False)
        await pilot.pause()
        after = themed_palette(grid, app.glyphs).style("allowed").bgcolor
        assert after.triplet.hex == Color.parse("#123456").hex.lower() != before.triplet.hex
