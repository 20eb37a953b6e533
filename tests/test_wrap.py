"""Paragraph wrapping for Chinese and English, and the legend flow."""

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from maskattn_tui.render.blocks import TextBlock, flow
from maskattn_tui.render.wrap import Paragraph, break_offsets
from maskattn_tui.lesson.f12 import load_f12

CLOSING = "，。、；：！？）》」』】”’"


def lines_of(renderable, width):
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text().rstrip("\n").split("\n")


def all_texts():
    f = load_f12()
    for lang in ("zh", "en"):
        yield lang, f.idea[lang]
        for s in f.sections:
            yield lang, s.body[lang]
        for s in f.steps:
            yield lang, s.caption[lang]


@pytest.mark.parametrize("width", [20, 37, 50, 80])
def test_every_line_fits_and_no_text_is_lost(width):
    for lang, text in all_texts():
        lines = lines_of(Paragraph(Text(text)), width)
        assert all(cell_len(line) <= width for line in lines)
        # Breaks only drop the spaces at the break, never characters.
        kept = "".join(lines).replace(" ", "").replace("\u00a0", "")  # a break drops its spaces
        assert kept == text.replace(" ", "").replace("\u00a0", "")
        assert not any(line[:1] in CLOSING for line in lines if line), (lang, lines)


def test_chinese_lines_are_filled():
    """Rich alone leaves Chinese lines ragged; here every line but the last
    reaches within 4 cells of the width (a CJK char is 2 cells, and a Latin
    word may not fit at the end)."""
    text = load_f12().sections[2].body["zh"]
    width = 40
    lines = lines_of(Paragraph(Text(text)), width)
    ragged = [line for line in lines[:-1] if cell_len(line) < width - 8]
    assert len(ragged) <= 1, lines


def test_long_token_is_folded():
    assert break_offsets("x" * 25, 10) == [10, 20]


def test_a_matrix_wider_than_the_line_folds_after_a_comma():
    # one token (no spaces): "[5" / "0]]" split a number; a comma that fits is the break
    text = "V\u00a0=\u00a0[[10],[80],[10],[60],[50]]"
    assert [text[a:b] for a, b in zip([0, *break_offsets(text, 27)], [*break_offsets(text, 27), len(text)])] == [
        "V\u00a0=\u00a0[[10],[80],[10],[60],", "[50]]"]
    assert break_offsets("[123456789012]", 6) == [6, 12]  # no comma: folded where the line ends
    pairs = "[[1,-2],[0,0],[1,0]]"  # between rows ("],") before inside a row
    assert [pairs[a:b] for a, b in zip([0, *break_offsets(pairs, 17)], [*break_offsets(pairs, 17), len(pairs)])] == [
        "[[1,-2],[0,0],", "[1,0]]"]


@pytest.mark.parametrize("seed", range(3))
def test_folded_lines_fit_whatever_the_text(seed):
    import random

    from maskattn_tui.cjk_wrap import cell_width, wrap

    rnd = random.Random(seed)
    for _ in range(3000):
        text = "".join(rnd.choice("ab,, 中文，[1]\u00a0") for _ in range(rnd.randint(0, 60)))
        width = rnd.randint(2, 20)
        lines = wrap(text, width)
        assert all(cell_width(line) <= width or len(line) == 1 for line in lines), (text, width, lines)
        kept = "".join(lines).replace(" ", "").replace("\u00a0", "")  # a break drops its spaces
        assert kept == text.replace(" ", "").replace("\u00a0", "")


def test_flow_never_splits_an_entry():
    from rich.segment import Segment

    entries = [[Segment(f"[{i}]"), Segment(f" entry number {i}")] for i in range(8)]
    lines = lines_of(TextBlock(flow(entries, 40)), 40)
    joined = "\n".join(lines)
    for i in range(8):
        assert f"[{i}] entry number {i}" in joined
    assert all(cell_len(line) <= 40 for line in lines)
    assert len(lines) > 1


def test_text_without_cjk_breaks_as_with_the_cjk_pattern():
    # Text with no CJK character is cut into tokens by a cheaper pattern
    # (the CJK one takes ~2 ms to compile); both must give the same tokens.
    import random
    import re

    from maskattn_tui.i18n import catalog
    from maskattn_tui import cjk_wrap as wrap

    full = re.compile(wrap._TOKEN_PATTERN)
    texts = [text for t in catalog().values() for text in t.values()] + [text for _, text in all_texts()]
    rng = random.Random(12)
    alphabet = "ab Z1 \t\u00a0,.;:!?()“‘”’·−∞≤…—-▶█\u2e7f"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(2000)]
    plain = 0
    for text in texts:
        pattern = wrap._token_pattern(text)
        plain += pattern is wrap._PLAIN_TOKEN
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in full.finditer(text)], text
    assert plain > 2000
    assert wrap._token_pattern("中文，好").pattern == wrap._TOKEN_PATTERN


@pytest.mark.parametrize("width", [4, 6, 7, 9])
def test_help_and_the_drawings_break_lines_alike(width):
    # one line breaker (issue 19): --help's wrapping and the panes' lines
    from maskattn_tui.cli.help_wrap import wrap
    from maskattn_tui.render.blocks import wrap_text

    texts = ["他说“引号里的话”然后结束。", "键‘a’与（括号）里的字", "PAD Key（位置 0）被屏蔽；", "100% 的权重】在这里"]
    for text in texts:
        drawn = ["".join(s.text for s in line) for line in wrap_text(text, width)]
        assert wrap(text, width) == drawn, text
        for line in drawn[1:]:
            assert line[:1] not in CLOSING, (text, drawn)  # never a closing mark first
