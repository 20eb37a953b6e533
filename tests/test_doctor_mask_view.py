"""Mask mode's pure parts: the table sources over a diagnosed mask (cells and
blocks), the bars of a row, the explanation's sections, the state. Expected
values come from how each mask was built and from per-cell Python loops or
the engine's own softmax, not from the code under test."""

import math

import numpy as np
import pytest

from maskattn_tui.doctor import diagnose
from maskattn_tui.maskmode.row_weights import check_scores, generated_scores, row_weights
from maskattn_tui.maskmode.sources import TILE_COLS, TILE_ROWS, BlockSource, CellSource, Window
from maskattn_tui.maskmode.tables import BASE, MaskTables
from maskattn_tui.maskmode.text import bars_caption, sections
from maskattn_tui.engine.softmax import masked_softmax
from maskattn_tui.errors import MaskattnError
from maskattn_tui.model.mask_model import BLOCK_SIZES, auto_block, new_state, sizes_for
from maskattn_tui.render.palette import default_palette

F32_MIN = float(np.finfo(np.float32).min)


def causal(rows, keys):
    return np.tril(np.ones((rows, keys), dtype=bool), keys - rows)


def tables_of(mask):
    return MaskTables(mask, diagnose(mask))


def expected_reason(visible, r, k, past, pad_keys=()):
    """Why a cell is what it is, spelled out per cell."""
    if visible:
        return "allowed"
    future, pad = k > past + r, k in pad_keys
    return "future+pad" if future and pad else "future" if future else "pad" if pad else "hidden"


# -- cells ------------------------------------------------------------------------


def test_leak_cell_is_visible_in_the_mask_and_future_in_the_rule():
    mask = causal(6, 6)
    mask[1, 4] = True
    t = tables_of(mask)
    user, rule = CellSource(t, "user"), CellSource(t, "rule")
    assert (user.rows, user.cols) == (6, 6)
    assert user.cell(1, 4) == "allowed" and rule.cell(1, 4) == "future"
    assert user.differs(1, 4) and rule.differs(1, 4)
    diffs = [(r, k) for r in range(6) for k in range(6) if user.differs(r, k)]
    assert diffs == [(1, 4)]
    for r in range(6):
        for k in range(6):
            assert rule.cell(r, k) == expected_reason(k <= r, r, k, 0)
            assert user.cell(r, k) == expected_reason(bool(mask[r, k]), r, k, 0)


def test_left_padded_row_with_a_cache_labels_positions_and_pad():
    # SDPA bool with 3 cached keys, the first two keys PAD (left padding).
    rows, keys, past = 3, 6, 3
    mask = causal(rows, keys)
    mask[:, :2] = False
    t = tables_of(mask)
    assert t.diagnosis.pad_keys == (0, 2) and t.offset == past
    src = CellSource(t, "user")
    assert [src.row_label(r) for r in range(rows)] == ["q3", "q4", "q5"]
    assert [src.col_label(c) for c in range(keys)] == [f"k{c}" for c in range(keys)]
    assert [src.col_is_pad(c) for c in range(keys)] == [True, True, False, False, False, False]
    assert [src.col_group(c) for c in range(keys)] == ["cached"] * 3 + ["new"] * 3
    assert src.any_pad
    for r in range(rows):
        for k in range(keys):
            assert src.cell(r, k) == expected_reason(bool(mask[r, k]), r, k, past, (0, 1))
            assert not src.differs(r, k)  # the mask is its rule
    assert src.max_row_label() == len("q5") and src.max_col_label() == len("k5")


def test_sliding_window_hides_old_keys_for_another_reason():
    rows, w = 8, 3
    p, k = np.arange(rows)[:, None], np.arange(rows)[None, :]
    mask = (k <= p) & (k > p - w)
    t = tables_of(mask)
    assert t.diagnosis.window == w
    src = CellSource(t, "rule")
    assert src.cell(5, 1) == "hidden" and src.cell(5, 6) == "future" and src.cell(5, 4) == "allowed"


def test_top_left_mask_with_a_cache_is_compared_with_its_bottom_right_fix():
    # torch is_causal=True with 3 cached keys: tril of a 2 x 5 table (top-left).
    mask = np.tril(np.ones((2, 5), dtype=bool))
    t = tables_of(mask)
    assert t.diagnosis.alignment.alignment == "top-left" and t.diagnosis.offset == 0
    assert t.realigned and t.offset == 3 and not t.exact
    user, rule = CellSource(t, "user"), CellSource(t, "rule")
    assert [user.row_label(r) for r in range(2)] == ["q3", "q4"]  # the queries after the cache
    fixed = causal(2, 5)  # what it should be: tril(ones(2, 5), 3)
    differ = [(r, k) for r in range(2) for k in range(5) if user.differs(r, k)]
    assert differ == [(r, k) for r in range(2) for k in range(5) if mask[r, k] != fixed[r, k]]
    assert len(differ) == t.diagnosis.findings[t.diagnosis.codes().index("top-left")].count == 6
    assert user.cell(0, 1) == "hidden" and rule.cell(0, 1) == "allowed"  # history the mask hides
    assert user.cell(1, 4) == "hidden" and rule.cell(1, 4) == "allowed"  # q4 reads itself, k4
    assert user.cell(0, 4) == "future" == rule.cell(0, 4)  # q3 may not read k4


def test_a_window_of_cells_reads_its_own_cells_and_labels():
    mask = causal(40, 300)
    t = tables_of(mask)
    src = CellSource(t, "user", Window(8, 16, 256, 264))
    assert (src.rows, src.cols) == (8, 8)
    assert src.row_label(0) == f"q{8 + 260}" and src.col_label(7) == "k263"
    for r in range(8):
        for c in range(8):
            assert src.cell(r, c) == expected_reason(bool(mask[8 + r, 256 + c]), 8 + r, 256 + c, 260)


def test_a_row_move_on_a_big_memmapped_mask_reads_a_tile_or_two(tmp_path):
    n = 4096
    path = tmp_path / "big.npy"
    np.save(path, causal(n, n))
    mask = np.load(path, mmap_mode="r")
    t = tables_of(mask)
    src = CellSource(t, "user")
    shown = range(0, 100)
    for r in range(2000, 2030):
        for c in shown:
            src.cell(r, c)
    before = src.tiles_read
    assert before <= 2  # rows 2000-2029 lie in at most two tiles of 32 rows
    for r in range(2030, 2030 + TILE_ROWS):  # one move down after another
        for c in shown:
            assert src.cell(r, c) == ("allowed" if c <= r else "future")
    assert src.tiles_read - before <= 1
    assert TILE_COLS >= 100


# -- blocks -----------------------------------------------------------------------


def brute_blocks(got, want, size):
    rows, keys = got.shape
    out = []
    for i in range(0, rows, size):
        line = []
        for j in range(0, keys, size):
            g, w = got[i:i + size, j:j + size], want[i:i + size, j:j + size]
            kind = lambda a: "block.empty" if not a.any() else "block.full" if a.all() else "block.partial"  # noqa: E731
            line.append((kind(g), kind(w), int((g != w).sum())))
        out.append(line)
    return out


@pytest.mark.parametrize("size", [8, 32, 128])
def test_blocks_match_per_block_loops_on_a_window_mask_with_leaks(size):
    rows, keys, past, w = 300, 333, 33, 50
    p, k = np.arange(rows)[:, None] + past, np.arange(keys)[None, :]
    mask = (k <= p) & (k > p - w)
    mask[7, 200] = mask[150, 320] = True  # two leaks
    t = tables_of(mask)
    assert t.diagnosis.leak_count == 2
    want = t.diagnosis.rule.table_rows(slice(None))
    expected = brute_blocks(mask, want, size)
    user, rule = BlockSource(t, "user", size), BlockSource(t, "rule", size)
    assert (user.rows, user.cols) == (len(expected), len(expected[0]))
    for i, line in enumerate(expected):
        for j, (g, w_, d) in enumerate(line):
            assert (user.cell(i, j), rule.cell(i, j), user.differs(i, j)) == (g, w_, d > 0)
            assert int(t.blocks(size).differ[i, j]) == d
    assert user.row_label(1) == f"q{past + size}" and user.col_label(2) == f"k{2 * size}"


def test_block_size_must_be_a_multiple_of_the_counting_tile():
    t = tables_of(causal(20, 20))
    with pytest.raises(ValueError):
        t.blocks(BASE + 1)
    assert all(size == 1 or size % BASE == 0 for size in BLOCK_SIZES)


def test_changing_the_block_size_does_not_read_the_mask_again():
    class Counting(np.ndarray):
        reads = 0

        def __getitem__(self, item):
            Counting.reads += 1
            return super().__getitem__(item)

    mask = causal(256, 256).view(Counting)
    mask[3, 100] = True
    t = MaskTables(mask, diagnose(np.asarray(mask)))
    t.blocks(8)
    reads = Counting.reads
    assert reads > 0  # the one pass did read it
    for size in (32, 128, 2048, 32):
        t.blocks(size)
    assert Counting.reads == reads


# -- bars -------------------------------------------------------------------------


def test_row_weights_are_the_engines_masked_softmax():
    mask = causal(5, 9)
    mask[2, 8] = True
    t = tables_of(mask)
    for row in range(5):
        w = row_weights(t, row)
        scores = generated_scores(row, 9)
        want = masked_softmax(list(scores), list(mask[row]))
        assert w.weights.tolist() == pytest.approx(want, abs=1e-12)
        assert w.count == int(mask[row].sum()) and w.position == row + 4
        assert all(x == 0.0 for x, v in zip(w.weights, mask[row]) if not v)


def test_generated_scores_are_the_same_every_time_and_differ_by_row():
    assert generated_scores(3, 16).tolist() == generated_scores(3, 16).tolist()
    assert generated_scores(3, 16).tolist() != generated_scores(4, 16).tolist()


def test_given_scores_one_row_for_all_and_a_full_table():
    mask = causal(3, 3)
    t = tables_of(mask)
    one = check_scores(np.array([0.0, math.log(3.0), 5.0]), (3, 3), "s.npy")
    w = row_weights(t, 1, one)
    assert w.weights.tolist() == pytest.approx([0.25, 0.75, 0.0]) and w.given
    full = check_scores(np.log(np.array([[1, 1, 1], [1, 4, 1], [2, 1, 1.0]])), (3, 3), "s.npy")
    assert row_weights(t, 2, full).weights.tolist() == pytest.approx([0.5, 0.25, 0.25])
    with pytest.raises(MaskattnError, match="s.npy"):
        check_scores(np.zeros((2, 3)), (3, 3), "s.npy")


def test_an_empty_row_has_no_weights_and_says_so():
    mask = causal(4, 4)
    mask[:2] = False  # rows 0-1 see nothing
    t = tables_of(mask)
    w = row_weights(t, 0)
    assert w.empty and w.top is None and not w.weights.any()
    for lang in ("en", "zh"):
        assert "q0" in bars_caption(w, [0, 1, 2, 3], lang)[0]
    w3 = row_weights(t, 3)
    caption = bars_caption(w3, [0, 1, 2, 3], "en")
    top = int(np.argmax(w3.weights))
    assert "softmax over 4 of 4 keys" in caption[0]
    # every visible key is shown: said as all the weight (a sum of 1.0000 said nothing)
    assert caption[1] == f"largest k{top} {w3.weights[top]:.4f}; k0-k3 show all 4 visible keys, so all the weight"
    # a window of keys: how many of the visible keys it shows, and their share, summed independently
    part = bars_caption(w3, [1, 2], "en")[1]
    share = f"{w3.weights[1] + w3.weights[2]:.4f}"
    assert part == f"largest k{top} {w3.weights[top]:.4f}; k1-k2 show 2 of the 4 visible keys, holding {share} of the weight"
    # a window holding hidden keys counts only the visible ones
    w1 = row_weights(t, 2)  # row 2 of causal(4,4) with rows 0-1 emptied: sees k0-k2
    assert "k2-k3 show 1 of the 3 visible keys" in bars_caption(w1, [2, 3], "en")[1]


def test_the_largest_weights_come_largest_first():
    mask = causal(1, 6)
    t = tables_of(mask)
    scores = np.log(np.array([1.0, 5, 2, 4, 3, 6]))
    w = row_weights(t, 0, check_scores(scores, (1, 6), "s.npy"))
    assert w.largest(3) == [5, 1, 3]  # weights 6/21, 5/21, 4/21
    assert w.largest(10) == [5, 1, 3, 4, 2, 0]
    caption = bars_caption(w, w.largest(2), "en", largest=True)
    assert caption[1] == f"its 2 largest weights, largest first, hold {11 / 21:.4f}"


# -- the state --------------------------------------------------------------------


def test_auto_picks_the_smallest_size_that_fits():
    assert auto_block(6, 6, 10, 10) == 1
    assert auto_block(16384, 16384, 40, 40) == 512  # 32 x 32 blocks
    assert auto_block(16384, 16384, 20, 20) == 1024  # 16 x 16
    assert auto_block(16384, 16384, 3, 3) == 4096  # the largest offered, scrolled
    assert auto_block(4096, 4096, 40, 32) == 128  # 32 x 32
    assert auto_block(4096, 4096, 40, 31) == 256
    assert sizes_for(6, 6) == (1, 8) and sizes_for(100, 40) == (1, 8, 16, 32, 64, 128)


def test_resizing_keeps_the_selected_place():
    s = new_state(4096, 4096, 40, 40)
    assert s.auto and s.size == 128 and s.shape == (32, 32)
    s = s.move(5, 7)  # block (5, 7) of 128: cells 640.., 896..
    assert s.place == (640, 896)
    s = s.resize(-1)
    assert (s.size, s.row, s.col, s.auto) == (64, 10, 14, False)
    s = s.resize(+1).resize(+1)
    assert (s.size, s.row, s.col) == (256, 2, 3)
    assert s.toggle_auto().size == 128 and s.toggle_auto().auto


def test_drill_down_and_back():
    s = new_state(1000, 700, 20, 20, size=128).move(7, 5)
    assert s.shape == (8, 6) and s.span == (896, 1000, 640, 700)
    d = s.drill()
    assert d.cells and d.window == (896, 1000, 640, 700) and d.shape == (104, 60)
    d = d.move(200, 3)  # clamped to the block
    assert (d.row, d.col) == (103, 3) and d.place == (999, 643)
    back = d.back()
    assert back.window is None and (back.row, back.col, back.size) == (7, 5, 128)
    assert d.drill() == d and s.back() == s


def test_a_new_room_repicks_auto_but_not_a_chosen_size():
    s = new_state(4096, 4096, 40, 40)
    assert s.with_fit(20, 20).size == 256
    chosen = s.resize(-1)
    assert chosen.with_fit(20, 20).size == 64


# -- the explanation ----------------------------------------------------------------


def glyph(reason):
    return default_palette().cell_glyph(reason)


def test_sections_say_the_findings_and_the_selected_leak_in_both_languages():
    mask = causal(6, 6)
    mask[1, 4] = True
    t = tables_of(mask)
    info = type("Info", (), {"path": "leak.npy", "format": "npy", "dtype": "bool", "shape": (6, 6), "batch": None})()
    s = new_state(6, 6, 20, 20).move(1, 4)
    en = sections(t, info, s, "en", glyph)
    zh = sections(t, info, s, "zh", glyph)
    here = " ".join(text for _, text in en[0].paragraphs)
    assert "q1" in here and "k4" in here and "leak" in here
    assert ("diff", "! a leak: your mask shows a future key that the rule hides") in en[0].paragraphs
    assert any("leak" in text.lower() or "future cells visible: 1" in text for _, text in en[1].paragraphs)
    assert en[1].paragraphs[0][0] == "warning"  # an error is styled, and says [error] in words
    assert "[error]" in en[1].paragraphs[0][1] and "[错误]" in zh[1].paragraphs[0][1]
    assert [sec.title for sec in zh] != [sec.title for sec in en]
    legend = en[3].paragraphs[0][1]
    assert "✓ visible" in legend and "× hidden otherwise" in legend


def test_block_sections_count_the_blocks_cells():
    mask = causal(64, 64)
    mask[3, 40] = True
    t = tables_of(mask)
    info = type("Info", (), {"path": "m.npy", "format": "npy", "dtype": "bool", "shape": (64, 64), "batch": None})()
    s = new_state(64, 64, 20, 20, size=32)
    text = [p for _, p in sections(t, info, s, "en", glyph)[0].paragraphs]
    assert text[0].startswith("block of queries q0-q31 x keys k0-k31 (1,024 cells)")
    assert text[1] == "your mask: 528 visible, partial (some cells visible)"  # 32*33/2
    assert text[2] == "the rule: 528 visible, partial (some cells visible)"
    s = s.move(0, 1)
    text = [p for _, p in sections(t, info, s, "en", glyph)[0].paragraphs]
    assert text[1].startswith("your mask: 1 visible") and text[2].startswith("the rule: 0 visible, empty")
    assert text[3].startswith("! 1 cell differs")
