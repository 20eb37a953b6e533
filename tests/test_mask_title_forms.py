"""Mask mode's two table titles are never cut mid-word where a shorter
form fits whole (issue 20): at 100 columns the rule's title read "the
rule: causal; sliding window, 4096 keys inc", at 80 "the rule: sliding
window, 4096 keys in". Each title is now the fullest of its forms (the
whole title, without its label, a short rule name, the label alone) that
fits the room the twin gives it, in both languages."""

from __future__ import annotations

import numpy as np
import pytest
from rich.cells import cell_len

from maskattn_tui.cli.big_config import big_config_from_args
from maskattn_tui.cli.export import screen_text, settle
from maskattn_tui.cli.parser import build_parser
from maskattn_tui.maskmode.saved_doc import open_mask
from maskattn_tui.render.mask_figure import title_forms
from maskattn_tui.render.mask_lines import GAP
from maskattn_tui.maskmode.rule_doc import RuleDoc
from maskattn_tui.tui.app import make_app

SIZES = [(100, 30), (80, 24), (60, 20)]


def rule_doc(lang: str) -> RuleDoc:
    args = build_parser().parse_args(["--new", "16384", "--window", "4096"])
    return RuleDoc(big_config_from_args(args), lang)


def window_mask(tmp_path, n: int = 1024, w: int = 256) -> str:
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    path = tmp_path / "sw.npy"
    np.save(path, (j <= i) & (j > i - w))  # causal, w keys including itself
    return str(path)


async def shown_titles(doc, lang: str, size: tuple[int, int]):
    """The twin's two titles, the rooms it gives them, the screen's text."""
    app = make_app(mask=doc, lang=lang)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        grid = app.screen.query_one("#mask-grid")
        twin = grid.figure
        view = grid.width()
        half = twin.half(min(view, twin.view))
        rooms = half, min(view, twin.view) - half - GAP
        return (twin.left.title, twin.right.title), rooms, screen_text(app)


def check(titles, rooms, text, forms) -> None:
    for title, room, side in zip(titles, rooms, forms):
        assert title in side, (title, side)  # one of its forms, whole: never cut
        assert cell_len(title) <= room, (title, room)
        assert title in text, title  # on screen as it is


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_long_rules_titles_fit_whole(lang, size):
    doc = rule_doc(lang)
    titles, rooms, text = await shown_titles(doc, lang, size)
    check(titles, rooms, text, title_forms(doc, lang))
    if lang == "en" and size == (100, 30):  # the whole rule beside "the same rule"
        assert titles == ("the rule: causal; sliding window, 4096 keys including itself", "the same rule")
    if lang == "en" and size == (80, 24):  # its short name
        assert titles[0] == "the rule: causal · window W = 4096"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_read_masks_titles_fit_whole(tmp_path, lang, size):
    doc = open_mask(window_mask(tmp_path))
    titles, rooms, text = await shown_titles(doc, lang, size)
    check(titles, rooms, text, title_forms(doc, lang))
    if lang == "en" and size == (80, 24):  # the rule without its label, beside the polarity
        assert titles == ("your mask (True / 1 = attend)", "sliding window, 256 keys including itself")
