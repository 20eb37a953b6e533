"""The API lens and experiment renderables on a recording console, checked
against tables written by hand from the libraries' conventions and the
chapter's printed numbers (not against the explore core's own output)."""

from __future__ import annotations

import math
import re

import pytest
from rich.console import Console

from maskattn_tui.explore import ExploreConfig, causal_off, leak_probe, offset_bug, polarity_bug
from maskattn_tui.render.experiments import experiment_view
from maskattn_tui.render.lens import api_lens_view
from maskattn_tui.render.palette import default_palette
from helpers import grid_rows

WIDE = 200


def render(renderable, width=WIDE, color=False) -> str:
    console = Console(width=width, record=True, force_terminal=color, color_system="truecolor" if color else None,
                      highlight=False)
    console.print(renderable)
    return console.export_text()


def section(text: str, start: str, end: str | None = None) -> str:
    """The text from the line holding `start` up to the line holding `end`."""
    i = text.index(start)
    j = text.index(end, i) if end else len(text)
    return text[text.rfind("\n", 0, i) + 1:j]


def matrix(text: str, title: str, nth: int = 0) -> dict[str, list[str]]:
    """The small matrix under the nth line containing `title` (its start):
    row label ->
    cell tokens ("1", "0!", "−∞", ...), read in the title's own columns."""
    lines = text.splitlines()
    hits = [i for i, line in enumerate(lines) if title in line]
    at = hits[nth]
    col = lines[at].index(title)
    rows: dict[str, list[str]] = {}
    for line in lines[at + 2:]:  # past the title and the k-label header
        tokens = line[col:].split()
        # a matrix printed beside this one starts at the next row label
        nxt = [i for i, x in enumerate(tokens) if i and re.fullmatch(r"q\d+", x)]
        tokens = tokens[:nxt[0]] if nxt else tokens
        if not tokens:
            break
        if re.fullmatch(r"q\d+", tokens[0]):
            label, cells = tokens[0], tokens[1:]
        elif all(re.fullmatch(r"[01]!?", x) for x in tokens):
            label, cells = "", tokens
        else:
            break
        rows[label] = cells
        if label == "":
            break
    return rows


def bits(cells: list[str]) -> str:
    return "".join(c.rstrip("!") for c in cells)


def marked(cells: list[str]) -> str:
    return "".join("1" if c.endswith("!") else "0" for c in cells)


# --- the lens's running example: past = 3, new = 2 ----------------------------------

RUNNING = ExploreConfig(past=3, new=2)
BOTTOM_RIGHT = {"q3": "11110", "q4": "11111"}  # hand-written: keys <= past + row
TOP_LEFT = {"q3": "10000", "q4": "11000"}  # hand-written: keys <= row


@pytest.fixture(scope="module")
def lens_text():
    return render(api_lens_view(RUNNING.table(), "all", "en", default_palette(color=False)))


def block(text: str, number: int) -> str:
    nxt = f"\n{number + 1}. "
    return section(text, f"\n{number}. ", nxt if nxt in text else None)


def test_our_table_first(lens_text):
    ours = matrix(lens_text, "Our table (1 = may read)")
    assert {k: bits(v) for k, v in ours.items()} == BOTTOM_RIGHT
    assert "! = differs from our table" in lens_text


def test_sdpa_bool_true_means_attend(lens_text):
    b = block(lens_text, 1)
    assert "SDPA, boolean attn_mask" in b and "True = take part (attend)" in b
    value = matrix(b, "attn_mask (bool, 2 × 5)")
    assert {k: bits(v) for k, v in value.items()} == BOTTOM_RIGHT
    assert "What it lets through is our table." in b
    assert "output 0.0" in b and "NaN" in b  # a row with no visible key: 0 on CPU, NaN in the reference


def test_sdpa_float_zero_and_minus_infinity(lens_text):
    b = block(lens_text, 2)
    value = matrix(b, "attn_mask (float, 2 × 5)")
    assert value == {"q3": ["0", "0", "0", "0", "−∞"], "q4": ["0"] * 5}


def test_mha_attn_mask_true_means_blocked(lens_text):
    b = block(lens_text, 3)
    assert "True = blocked" in b and "BLOCKED: the OPPOSITE of our table" in b
    value = matrix(b, "attn_mask (bool, 2 × 5)")
    assert {k: bits(v) for k, v in value.items()} == {"q3": "00001", "q4": "00000"}
    # ... and what it lets through is still our table (no marks)
    through = matrix(b, "What it lets through")
    assert {k: bits(v) for k, v in through.items()} == BOTTOM_RIGHT
    assert all(marked(v) == "00000" for v in through.values())
    assert "out_proj.bias" in b


def test_hf_attention_mask_is_past_plus_new_long(lens_text):
    b = block(lens_text, 5)
    value = matrix(b, "attention_mask (int, 1 × 5)")
    assert value == {"": ["1"] * 5}
    assert "What it lets through is our table." in b
    assert "uniform weights" in b


def test_torch_is_causal_is_top_left_and_marked(lens_text):
    b = block(lens_text, 7)
    through = matrix(b, "What it lets through")
    assert {k: bits(v) for k, v in through.items()} == TOP_LEFT
    # the six history cells hidden from the new queries carry the mark
    assert {k: marked(v) for k, v in through.items()} == {"q3": "01110", "q4": "00111"}
    assert "differs from our table in 6 cell(s): q3: k1–k3; q4: k2–k4" in b
    fix = matrix(b, "torch.nn.attention.bias.causal_lower_right(L, S): bottom-right aligned")
    assert {k: bits(v) for k, v in fix.items()} == BOTTOM_RIGHT


def test_flash_is_bottom_right_since_2_1(lens_text):
    b = block(lens_text, 6)
    assert "causal = True" in b
    through = matrix(b, "What it lets through")
    assert {k: bits(v) for k, v in through.items()} == BOTTOM_RIGHT
    old = matrix(b, "causal=True in flash-attn 2.0: top-left")
    assert {k: bits(v) for k, v in old.items()} == TOP_LEFT
    assert "! 6 cell(s) differ from our table" in b


def test_key_padding_mask_and_hf_with_left_pad():
    config = ExploreConfig(past=3, new=2, pad=2, pad_side="left")
    text = render(api_lens_view(config.table(), "mha-key-padding,hf", "en", default_palette(color=False)))
    kp = block(text, 1)
    assert matrix(kp, "key_padding_mask (bool, 1 × 5)") == {"": ["1", "1", "0", "0", "0"]}  # True = PAD
    assert {k: bits(v) for k, v in matrix(kp, "attn_mask: True = blocked").items()} == {"q3": "00001", "q4": "00000"}
    hf = block(text, 2)
    assert matrix(hf, "attention_mask (int, 1 × 5)") == {"": ["0", "0", "1", "1", "1"]}  # 1 = real token
    through = matrix(hf, "What it lets through")
    assert {k: bits(v) for k, v in through.items()} == {"q3": "00110", "q4": "00111"}


def test_a_row_with_no_visible_key_is_named():
    # left PAD over the whole cache and the first query: q3 sees nothing
    config = ExploreConfig(past=3, new=2, pad=4, empty_row_policy="zeros")
    text = render(api_lens_view(config.table(), "sdpa-bool", "en", default_palette(color=False)))
    assert "Rows with no visible key here: q3" in text


def test_lens_in_chinese():
    text = render(api_lens_view(RUNNING.table(), "mha-attn-mask,torch-is-causal", "zh", default_palette(color=False)))
    assert "True = 屏蔽" in text and "与我们的表极性相反" in text
    assert "与我们的表有 6 格不同" in text


def test_lens_names_as_a_list_and_unknown_names():
    text = render(api_lens_view(RUNNING.table(), ["hf"], "en", default_palette(color=False)))
    assert "1. Hugging Face attention_mask" in text and "\n2. " not in text
    from maskattn_tui.errors import MaskattnError

    with pytest.raises(MaskattnError):
        api_lens_view(RUNNING.table(), "sdpa", "en", default_palette())


def test_a_wide_table_is_printed_in_blocks_not_cut():
    config = ExploreConfig(past=20, new=4)
    text = render(api_lens_view(config.table(), "sdpa-bool", "en", default_palette(color=False)), width=60)
    assert max(len(line) for line in text.splitlines()) <= 60
    for j in range(24):
        assert re.search(rf"\bk{j}\b", text)
    assert text.count("q20 ") >= 2 * 2  # ours and the value matrix, each in at least two blocks


def test_colour_marks_differences_but_is_not_needed():
    console = Console(width=WIDE, record=True, force_terminal=True, color_system="truecolor")
    console.print(api_lens_view(RUNNING.table(), "torch-is-causal", "en", default_palette()))
    assert "\x1b[" in console.export_text(styles=True)
    plain = render(api_lens_view(RUNNING.table(), "torch-is-causal", "en", default_palette(color=False)))
    assert plain.count("0!") == 6  # the meaning survives without colour


# --- experiments -------------------------------------------------------------------

# The chapter's toy input: Q = K = [[1,0],[0,1],[1,1]], V = 10, 20, 30.
CHAPTER = ExploreConfig(past=0, new=3, q=[[1, 0], [0, 1], [1, 1]], k=[[1, 0], [0, 1], [1, 1]], v=[[10], [20], [30]])


def softmax_out(scores, values):
    e = [math.exp(s) for s in scores]
    return sum(x / sum(e) * v for x, v in zip(e, values))


def row_of(text: str, label: str) -> str:
    """The last table line whose first cell is `label` (the outputs table
    comes after the grids; its columns are two spaces apart)."""
    return [line for line in text.splitlines() if re.match(rf"^{re.escape(label)}(\s{{2,}}|$)", line)][-1]


def test_leak_probe_on_the_chapters_data():
    result = leak_probe(CHAPTER, broken="causal-off", keys=[2])  # the chapter's 30 -> 9999
    text = render(experiment_view("leak-probe", result, "en", default_palette(color=False)))
    assert "The probe: V at k2 set to 9999" in text and "k2: 30 → 9999" in text
    lines = text.splitlines()
    q0 = lines.index(row_of(text, "q0 (guarded)"))
    q1 = lines.index(row_of(text, "q1 (guarded)"))
    # correct mask: the chapter's outputs 10 and 16.6976, before and after, unchanged
    assert re.search(r"correct\s+10\.0000\s+10\.0000\s+= unchanged", lines[q0])
    assert re.search(r"correct\s+16\.6976\s+16\.6976\s+= unchanged", lines[q1])
    # broken mask (no causal rule): q0 reads k2 = 9999; numbers by hand
    r2 = 1 / math.sqrt(2)
    before = softmax_out([r2, 0, r2], [10, 20, 30])
    after = softmax_out([r2, 0, r2], [10, 20, 9999])
    assert re.search(rf"broken\s+{before:.4f}\s+{after:.4f}\s+! changed by {after - before:.4f}",
                     lines[q0 + 1])
    assert "! changed" in lines[q1 + 1]
    assert "Correct mask: no guarded row moved" in text
    assert "guarded rows q0, q1 moved" in text


def test_leak_probe_on_the_running_example_and_in_chinese():
    result = leak_probe(RUNNING)
    text = render(experiment_view("leak-probe", result, "en", default_palette(color=False)))
    assert "V at k4 set to 9999" in text
    assert "= unchanged" in row_of(text, "q3 (guarded)")
    assert "q4 (reads k4)" in text
    zh = render(experiment_view("leak-probe", result, "zh", default_palette(color=False)))
    assert "泄漏探针" in zh and "q3（受保护）" in zh and "= 不变" in zh


def test_leak_probe_without_a_future_key():
    text = render(experiment_view("leak-probe", leak_probe(ExploreConfig(past=4, new=1)), "en",
                                  default_palette(color=False)))
    assert "nothing can leak" in text


def glyph_bits(cells):
    return "".join("1" if c.rstrip("!") in ("✓", "+") else "0" for c in cells)


def test_offset_bug_marks_exactly_the_hidden_history():
    text = render(experiment_view("offset-bug", offset_bug(RUNNING), "en", default_palette(color=False)), width=60)
    rows = grid_rows(text)
    assert [(label, glyph_bits(c)) for label, c in rows] == [
        ("q3", "11110"), ("q4", "11111"), ("row 0 as pos 0", "10000"), ("row 1 as pos 1", "11000"),
    ]
    assert [marked(c) for _, c in rows[2:]] == ["01110", "00111"]
    assert [marked(c) for _, c in rows[:2]] == ["00000", "00000"]
    assert "Cells that differ: 6 (marked !)" in text
    assert "History hidden from the new queries: q3: k1–k3; q4: k2–k4" in text


def test_polarity_bug_shows_the_inverted_table():
    text = render(experiment_view("polarity-bug", polarity_bug(RUNNING), "en", default_palette(color=False)))
    meant = matrix(text, "What you meant and pass")
    assert {k: bits(v) for k, v in meant.items()} == BOTTOM_RIGHT
    got = matrix(text, "What nn.MultiheadAttention does with it (True = BLOCKED)")
    assert {k: bits(v) for k, v in got.items()} == {"q3": "00001", "q4": "00000"}
    assert {k: marked(v) for k, v in got.items()} == {"q3": "11111", "q4": "11111"}
    assert "Future now visible: q3: k4" in text
    assert "now hidden (the past and the self): q3: k0–k3; q4: k0–k4" in text
    assert "Rows left with no visible key: q4" in text
    assert "refused" in row_of(text, "q4")


def test_causal_off_shows_every_valid_key():
    config = ExploreConfig(past=3, new=2, pad=1)
    text = render(experiment_view("causal-off", causal_off(config), "en", default_palette(color=False)), width=60)
    rows = grid_rows(text)
    assert [(label, glyph_bits(c)) for label, c in rows] == [
        ("q3", "01110"), ("q4", "01111"), ("q3", "01111"), ("q4", "01111"),
    ]
    assert [marked(c) for _, c in rows[2:]] == ["00001", "00000"]
    assert "Newly visible (the future): q3: k4" in text


def test_causal_off_outputs_on_the_chapters_data():
    text = render(experiment_view("causal-off", causal_off(CHAPTER), "en", default_palette(color=False)))
    # The chapter: with the causal mask the outputs are 10, 16.6976, 22.5523
    for label, value in (("q0", "10.0000"), ("q1", "16.6976"), ("q2", "22.5523")):
        assert re.search(rf"\s{value}\s", row_of(text, label))
    assert "= unchanged" in row_of(text, "q2")  # the last row saw everything already
    assert "! changed" in row_of(text, "q0")


@pytest.mark.parametrize("name, run", [
    ("leak-probe", leak_probe), ("offset-bug", offset_bug), ("polarity-bug", polarity_bug), ("causal-off", causal_off),
])
def test_ascii_palette_gives_pure_ascii_in_english(name, run):
    config = ExploreConfig(past=2, new=3, pad=1, empty_row_policy="nan")
    palette = default_palette(ascii=True, color=False)
    text = render(experiment_view(name, run(config), "en", palette), width=100)
    text += render(api_lens_view(config.table(), "all", "en", palette), width=100)
    bad = sorted({ch for ch in text if ord(ch) > 127})
    assert bad == []


def test_leak_probe_against_the_offset_bug_leaks_nothing():
    # top-left alignment hides history but never shows the future
    result = leak_probe(RUNNING, broken="offset")
    text = render(experiment_view("leak-probe", result, "en", default_palette(color=False)))
    assert "Broken: batch row numbers" in text
    assert "Broken mask: no guarded row moved" in text
    assert "Rows whose broken-mask output differs from the correct one: q3, q4." in text
