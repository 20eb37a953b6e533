"""Mask mode on a big mask: Home/End and PgUp/PgDn over rows, their twins
over keys, a go-to (row, key), FlexAttention's block statistics checked
against torch's own BlockMask, and a footer that keeps L, o and ? at 80
columns."""

from __future__ import annotations

import numpy as np
import pytest
from textual.widgets import Input

from maskattn_tui.cli.export import settle
from maskattn_tui.maskmode.saved_doc import open_mask
from maskattn_tui.i18n import t
from maskattn_tui.tui import make_app
from maskattn_tui.tui.mask_goto import parse_goto
from maskattn_tui.maskmode.block_stats import FLEX_BLOCK


def causal(rows, keys):
    return np.tril(np.ones((rows, keys), dtype=bool), max(0, keys - rows))


@pytest.fixture
def cells(tmp_path):
    path = tmp_path / "causal_300.npy"
    np.save(path, causal(300, 260))
    return path


async def test_home_end_pages_and_key_edges_move_the_selection(cells):
    app = make_app(mask=open_mask(str(cells)), block=1)  # the cells themselves
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.state.size == 1 and screen.state.place == (0, 0)
        page = screen.state.fit[0] - 1
        assert page > 1
        await pilot.press("end")
        assert screen.state.place == (299, 0)
        await pilot.press("pageup")
        assert screen.state.place == (299 - page, 0)
        await pilot.press("home", "pagedown", "pagedown")
        assert screen.state.place == (2 * page, 0)
        await pilot.press("shift+end")
        assert screen.state.place == (2 * page, 259)
        await pilot.press("ctrl+left")
        assert screen.state.place == (2 * page, 259 - (screen.state.fit[1] - 1))
        await pilot.press("shift+home")
        assert screen.state.place == (2 * page, 0)
        await pilot.press("ctrl+right")
        assert screen.state.place == (2 * page, screen.state.fit[1] - 1)
        # the grid followed: the selected row is on screen
        await settle(pilot)
        grid = screen.query_one("#mask-grid")
        shown = "\n".join(grid.render_line(y).text for y in range(grid.size.height))
        assert "●" in shown  # the selection mark


@pytest.mark.parametrize("text,expected", [
    ("16383, 0", (16383, 0)), ("q12 k3", (12, 3)), ("7", (7, None)), (" 4 5 ", (4, 5)),
    ("x", None), ("1,2,3", None), ("-1, 2", None), ("", None),
])
def test_goto_answers(text, expected):
    assert parse_goto(text) == expected


async def test_g_goes_to_a_row_and_key_of_a_big_mask(tmp_path):
    path = tmp_path / "big.npy"
    np.save(path, causal(4096, 4096))
    app = make_app(mask=open_mask(str(path)))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        size = screen.state.size
        assert size > 1  # an overview of blocks
        await pilot.press("g")
        await settle(pilot)
        box = app.screen.query_one("#where", Input)
        assert box.selected_text == box.value == "0, 0"  # typing replaces it
        await pilot.press(*"3000, 100", "enter")
        await settle(pilot)
        assert app.screen is screen
        r, c = screen.state.place
        assert r <= 3000 < r + size and c <= 100 < c + size
        await pilot.press("enter")  # into that block: the cell itself is there
        await settle(pilot)
        assert screen.state.window is not None
        await pilot.press("g", *"3001, 101", "enter")
        await settle(pilot)
        assert screen.state.place == (3001, 101)
        before = screen.state
        for bad in ("9999, 0", "nonsense"):
            await pilot.press("g", *bad, "enter")
            await settle(pilot)
            assert screen.state == before


def test_block_statistics_are_torchs():
    torch = pytest.importorskip("torch")
    from torch.nn.attention.flex_attention import create_block_mask

    rng = np.random.default_rng(5)
    masks = [causal(512, 512), causal(384, 640)]
    window = np.zeros((512, 640), dtype=bool)
    for q in range(512):
        window[q, max(0, q + 128 - 200):q + 129] = True
    masks += [window, rng.random((256, 384)) < 0.7]
    for mask in masks:
        import tempfile, os

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "m.npy")
            np.save(path, mask)
            doc = open_mask(path)
        dense = torch.from_numpy(mask)
        block_mask = create_block_mask(lambda b, h, q, k: dense[q, k], None, None, *mask.shape, device="cpu")
        stats = doc.tables.block_stats(FLEX_BLOCK)
        full = int(block_mask.full_kv_num_blocks.sum()) if block_mask.full_kv_num_blocks is not None else 0
        assert (stats.full, stats.partial) == (full, int(block_mask.kv_num_blocks.sum()))
        assert stats.sparsity == pytest.approx(block_mask.sparsity())
        assert stats.visible == int(mask.sum())


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_explanation_gives_the_block_statistics(tmp_path, lang):
    path = tmp_path / "c.npy"
    np.save(path, causal(512, 512))
    app = make_app(lang=lang, mask=open_mask(str(path)))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        explain = app.screen.query_one("#mask-explain")
        text = " ".join("".join(s.text for s in explain.figure.full(y)) for y in range(explain.figure.height))
        text = " ".join(text.split())
        # causal 512: 4 diagonal blocks partial, 6 below full, 6 above empty; 131,328 cells visible
        assert "131,328" in text and "262,144" in text and "37.50%" in text
        assert "6" in text and "4" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_mask_footer_keeps_l_o_and_help_at_80_columns(cells, lang):
    app = make_app(lang=lang, mask=open_mask(str(cells)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = app.screen.query_one("#mask-keys")
        line = footer.render_line(0).text
        for key in (" L ", " o ", " ? "):
            assert key in line, line


async def test_page_down_moves_rows_and_braces_scroll_the_explanation(cells):
    app = make_app(mask=open_mask(str(cells)), block=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        explain = screen.query_one("#mask-explain")
        await pilot.press("pagedown")
        await settle(pilot)
        assert screen.state.place[0] > 0 and explain.scroll_y == 0
        await pilot.press("right_curly_bracket")
        await settle(pilot)
        assert explain.scroll_y > 0
        assert t("tui.m.key.goto", "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_one_key_holding_all_the_weight_is_said_once(tmp_path, lang):
    path = tmp_path / "c8.npy"
    np.save(path, causal(8, 8))
    app = make_app(lang=lang, mask=open_mask(str(path)), block=1)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        bars = app.screen.query_one("#mask-bars")

        def caption() -> str:
            return "".join("".join(s.text for s in bars.figure.full(y)) + " " for y in range(6))

        # q0 reads k0 alone: its weight is 1 and it is all the shown keys hold
        def flat(text: str) -> str:
            return "".join(text.split())  # wrapped lines joined, in either language

        said = flat(caption())
        assert flat(t("doctor_tui.bars.top_all", lang, k=0, weight="1.0000", k0=0, k1=7)) in said
        assert flat(t("doctor_tui.bars.top_every", lang, k=0, weight="1.0000", k0=0, k1=7, n=1)) not in said
        await pilot.press("end")  # q7 reads all eight: the largest and the sum differ
        await settle(pilot)
        assert "k0-k7" in caption() and t("doctor_tui.bars.top_all", lang, k=0, weight="1.0000", k0=0,
                                          k1=7) not in caption()
        # q7 reads all eight keys and all are shown: all the weight, not a sum that is always 1
        q7 = app.screen.doc.weights(7)
        assert flat(t("doctor_tui.bars.top_every", lang, k=q7.top, weight=f"{q7.weights[q7.top]:.4f}",
                      k0=0, k1=7, n=8)) in flat(caption())
