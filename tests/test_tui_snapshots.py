"""Snapshots of the app (pytest-textual-snapshot). Every SVG here was looked
at as a PNG before it was accepted. Update with `pytest tests/test_tui_snapshots.py
--snapshot-update` (never together with -k: that deletes the deselected ones)."""

from __future__ import annotations

import pytest

from maskattn_tui.tui import make_app

#: Each step's drawing at the smallest full screen (80x24) in English; the
#: whole screen in Chinese at 80x24 (step 4, the widest table) and at 160x48.
#: What a pane holds in each language and at each size is read as text in
#: test_tui_reading.py, test_tui_drawing.py, test_tui_resize.py and
#: test_render_one_drawing.py; these are the pictures of it.
CASES = [pytest.param("en", (80, 24), step, id=f"en-80x24-step{step}") for step in range(1, 6)] + [
    pytest.param("zh", (80, 24), 4, id="zh-80x24-step4"),
    pytest.param("zh", (160, 48), 5, id="zh-160x48-step5"),
]


@pytest.mark.parametrize("lang,size,step", CASES)
def test_step(snap_compare, lang, size, step):
    assert snap_compare(make_app(step=step, lang=lang), terminal_size=size)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_screen(snap_compare, lang):
    assert snap_compare(make_app(step=2, lang=lang), press=["question_mark"], terminal_size=(80, 24))


@pytest.mark.parametrize("lang,step", [("en", 4)], ids=["en-80x24-step4"])
def test_zoomed_figure(snap_compare, lang, step):
    assert snap_compare(make_app(step=step, lang=lang), press=["z"], terminal_size=(80, 24))


def test_selected_non_default_row(snap_compare):
    # Step 3 focuses q2; select q0: the bars show row 0, the grid marks it.
    assert snap_compare(make_app(step=3), press=["up", "up"], terminal_size=(80, 24))


def test_selected_row_step5(snap_compare):
    assert snap_compare(make_app(step=5, lang="zh"), press=["down"], terminal_size=(120, 36))


@pytest.mark.parametrize("size", [(50, 24), (20, 6)], ids=["50x24", "20x6"])
def test_too_small_notice(snap_compare, size):
    assert snap_compare(make_app(step=2), terminal_size=size)


def test_wide_layout(snap_compare):
    assert snap_compare(make_app(step=5), terminal_size=(160, 48))


def test_ascii_glyphs(snap_compare):
    assert snap_compare(make_app(step=5, ascii=True), terminal_size=(100, 30))


def test_no_color(snap_compare, monkeypatch):
    # Every meaning is also written: glyphs in the cells, a legend, words.
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(make_app(step=5), terminal_size=(100, 30))
