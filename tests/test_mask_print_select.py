"""print --mask selects in the named mask: --row / --key / --batch / --head
are the mask's (a file, a capture folder, a FILE.py:NAME), refused naming
the mask's own range; a log is told options, never keys to press. In the
app, b / B and h / H step through a capture's batch rows and heads (or say
why not). The numbers are held against the masks themselves (numpy, the
tensor a real SDPA call received)."""

import re

import numpy as np
import pytest
import torch

from maskattn_tui.cli import main

F = torch.nn.functional


def _run(capsys, *argv):
    code = main(["print", "--width", "100", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _softmax_line(out: str) -> tuple[int, int, int]:
    """(row, visible keys, keys) from the bars' caption "qR: softmax over V of K keys"."""
    found = re.search(r"q(\d+): softmax over (\d+) of (\d+) keys", out)
    assert found, out
    return tuple(int(g) for g in found.groups())


@pytest.fixture
def causal40(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    table = np.tril(np.ones((40, 40), bool))
    table[:, :3] &= np.arange(40)[:, None] < 20  # rows 20.. lose keys 0-2: each row's count is its own
    np.save("big.npy", table)
    return table


@pytest.mark.parametrize("row", [1, 30, 39])
def test_row_selects_in_the_named_file(causal40, capsys, row):
    code, out, err = _run(capsys, "--mask", "big.npy", "--row", row)
    assert code == 0 and err == ""
    assert "shown by blocks" not in out and "past 3 + new 2" not in out
    assert _softmax_line(out) == (row, int(causal40[row].sum()), 40)
    assert re.search(rf"● q{row}\s", out)  # the row is the selected one in both tables
    assert len(re.findall(rf"● q{row}\s", out)) == 2


@pytest.mark.parametrize("lang, words", [("en", "must be 0 to 39"), ("zh", "必须在 0 到 39 之间")])
def test_rows_and_keys_outside_the_mask_are_refused_with_its_range(causal40, capsys, lang, words):
    for option in ("--row", "--key"):
        code, out, err = _run(capsys, "--mask", "big.npy", option, 40, "--lang", lang)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert f"{option} 40" in err and words in err
    code, out, err = _run(capsys, "--mask", "big.npy", "--row", 30, "--key", 5)
    assert code == 0 and _softmax_line(out)[0] == 30 and "k5 " in out


def test_row_selects_in_a_mask_mod(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mods.py").write_text("def window(b, h, q_idx, kv_idx):\n"
                                      "    return (kv_idx <= q_idx) & (kv_idx > q_idx - 10 - h)\n")
    from torch.nn.attention.flex_attention import create_mask

    from maskattn_tui.scale.mask_mod import load

    truth = create_mask(load("mods.py:window"), 1, 3, 100, 100, device="cpu")[0].numpy()
    for head in (0, 2):
        code, out, err = _run(capsys, "--mask", "mods.py:window", "--q-len", 100, "--kv-len", 100, "--row", 77,
                              "--head", head)
        assert code == 0 and _softmax_line(out) == (77, int(truth[head, 77].sum()), 100)
    code, out, err = _run(capsys, "--mask", "mods.py:window", "--q-len", 100, "--kv-len", 100, "--row", 100)
    assert code == 2 and "--row 100: must be 0 to 99" in err


@pytest.fixture
def capture_folder(tmp_path):
    """One SDPA call on a batch of two: row 1 has two left PAD keys."""
    from maskattn_tui import capture

    q = torch.randn(2, 1, 6, 8)
    mask = torch.ones(2, 1, 6, 6, dtype=torch.bool).tril()
    mask[1, :, :, :2] = False
    mask[1, :, :2, :2] = torch.eye(2, dtype=torch.bool)
    with capture(tmp_path / "cap"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
    return str(tmp_path / "cap"), mask[:, 0].numpy()


@pytest.mark.parametrize("batch", [0, 1])
def test_batch_selects_in_a_capture_folder(capture_folder, capsys, batch):
    folder, mask = capture_folder
    code, out, err = _run(capsys, "--mask", folder, "--batch", batch, "--row", 3)
    assert code == 0 and err == ""
    assert _softmax_line(out) == (3, int(mask[batch, 3].sum()), 6)
    title = out.splitlines()[0]
    assert f"batch {batch} head 0" in title and "n/N" not in title  # no keys in a log


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_slice_no_call_has_is_refused_with_the_calls_range(capture_folder, capsys, lang):
    folder, _ = capture_folder
    for option, hi in (("--batch", "0 到 1" if lang == "zh" else "0 to 1"), ("--head", "0 到 0" if lang == "zh" else "0 to 0")):
        code, out, err = _run(capsys, "--mask", folder, option, 2, "--lang", lang)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert f"{option} 2" in err and hi in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_printed_block_overview_names_options_not_keys(tmp_path, monkeypatch, capsys, lang):
    monkeypatch.chdir(tmp_path)
    np.save("m.npy", np.tril(np.ones((300, 300), bool)))
    code, out, err = _run(capsys, "--mask", "m.npy", "--lang", lang)
    assert code == 0 and "Enter" not in out and "--row 0 --key 0" in out
    assert not re.search(r"\bpress\b|按 ", out)
    # what it names shows that block's cells
    code, out, err = _run(capsys, "--mask", "m.npy", "--row", 0, "--key", 0, "--lang", lang)
    assert code == 0 and re.search(r"● q0\s+│\s*✓", out)


async def test_b_steps_through_a_captures_batch_rows(capture_folder):
    from maskattn_tui.maskmode.capture_doc import open_capture
    from maskattn_tui.tui import make_app

    folder, mask = capture_folder
    app = make_app(mask=open_capture(folder))
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.pause()

        def shown() -> np.ndarray:
            tables = app.screen.doc.tables
            return tables.user(0, tables.rows, 0, tables.keys)

        title = lambda: str(app.screen.query_one("#mask-title").render())  # noqa: E731
        assert "batch 0 head 0" in title() and np.array_equal(shown(), mask[0])
        await pilot.press("b")
        await pilot.pause()
        assert "batch 1 head 0" in title() and np.array_equal(shown(), mask[1])
        await pilot.press("b")  # wraps
        await pilot.pause()
        assert "batch 0 head 0" in title()
        await pilot.press("B")
        await pilot.pause()
        assert "batch 1 head 0" in title()
        screen = app.screen
        await pilot.press("h")  # one head: said, and the screen stays
        await pilot.pause()
        assert app.screen is screen
        assert any("one head slice only" in str(n.message) for n in app._notifications)


@pytest.mark.parametrize("width", range(80, 92))
def test_the_two_tables_show_the_same_keys_at_every_width(tmp_path, width):
    """A table wider than the view: each half shows the same keys (an odd
    room gave the right table one cell more: at 16,384² in a 160-column
    terminal, 34 keys beside 33)."""
    from maskattn_tui.maskmode.saved_doc import open_mask
    from maskattn_tui.model.mask_model import new_state
    from maskattn_tui.render.mask_figure import table_sources, twin_tables
    from maskattn_tui.render.mask_lines import GAP
    from maskattn_tui.render.palette import default_palette

    np.save(tmp_path / "m.npy", np.tril(np.ones((64, 300), bool), 236))
    doc = open_mask(str(tmp_path / "m.npy"))
    state = new_state(64, 300, 64, 200, 1)  # cells: 300 keys, wider than any of these views
    palette = default_palette(ascii=False, color=False)
    twin = twin_tables(doc, state, "en", table_sources(doc, state), palette, width)
    half = twin.half(width)
    for y in range(twin.height):
        text = "".join(s.text for s in twin.window(y, 0, width))
        left, right = text[:half], text[half + GAP:]
        assert len(right.rstrip()) <= len(left), (y, left, right)
        if y >= 1:  # below the titles: the same keys, the same cells
            assert left.rstrip() == right[:half].rstrip(), (y, left, right)


@pytest.mark.parametrize("batch, head", [(0, 0), (1, 0), (1, 2)])
def test_batch_and_head_select_a_slice_of_a_4d_file(tmp_path, monkeypatch, capsys, batch, head):
    monkeypatch.chdir(tmp_path)
    mask = np.tril(np.ones((2, 3, 8, 8), bool))
    mask[1, :, :, :2] = False  # batch row 1: two left PAD keys...
    mask[1, 2, :, 2] = False   # ...and head 2 also hides key 2
    mask[1, :, np.arange(8), np.arange(8)] = True
    np.save("m4.npy", mask)
    code, out, err = _run(capsys, "--mask", "m4.npy", "--batch", batch, "--head", head, "--row", 6)
    assert code == 0 and out.splitlines()[0].count(f"[batch {batch}, head {head}]") == 1
    assert _softmax_line(out) == (6, int(mask[batch, head, 6].sum()), 8)


async def test_b_on_a_mask_mod_says_how_b_is_chosen(tmp_path, monkeypatch):
    from maskattn_tui.maskmode.mask_mod_doc import open_mask_mod
    from maskattn_tui.tui import make_app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "mods.py").write_text("def causal(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx\n")
    app = make_app(mask=open_mask_mod("mods.py:causal", 64, 64, None, None, None))
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("b")
        await pilot.pause()
        assert app.screen is screen
        assert any("--batch B --head H" in str(n.message) for n in app._notifications)


@pytest.fixture
def three_calls(tmp_path):
    """Three SDPA calls: causal 4x4, a window of 2 over 6x6, causal 5x5."""
    from maskattn_tui import capture

    q4, q6, q5 = torch.randn(1, 1, 4, 8), torch.randn(1, 1, 6, 8), torch.randn(1, 1, 5, 8)
    window = torch.ones(6, 6, dtype=torch.bool).tril() & ~torch.ones(6, 6, dtype=torch.bool).tril(-2)
    with capture(tmp_path / "cap") as cap:
        F.scaled_dot_product_attention(q4, q4, q4, is_causal=True)
        F.scaled_dot_product_attention(q6, q6, q6, attn_mask=window)
        F.scaled_dot_product_attention(q5, q5, q5, is_causal=True)
    return str(tmp_path / "cap"), [c["call"] for c in cap.calls if c["kind"] == "sdpa"], window


def test_call_opens_that_call_of_a_capture_folder(three_calls, capsys):
    folder, numbers, window = three_calls
    code, out, err = _run(capsys, "--mask", folder, "--call", numbers[1], "--row", 4)
    assert code == 0 and err == ""
    assert out.startswith(f"call {numbers[1]} (2/3)") and "6x6" in out.splitlines()[0]
    # row 4 of the window table: keys 3 and 4 of 6
    assert _softmax_line(out) == (4, int(window[4].sum()), 6) == (4, 2, 6)


def test_call_refusals_name_what_there_is(three_calls, capsys, tmp_path):
    folder, numbers, _ = three_calls
    code, out, err = _run(capsys, "--mask", folder, "--call", 99)
    assert code == 2 and out == "" and "no call 99 with a table" in err
    assert numbers == [0, 1, 2] and "(calls with one: #0-2)" in err  # the calls that have one, as runs
    np.save(tmp_path / "m.npy", np.tril(np.ones((3, 3), dtype=bool)))
    code, out, err = _run(capsys, "--mask", tmp_path / "m.npy", "--call", 0)
    assert code == 2 and "--call goes with --mask DIR" in err
    code, out, err = _run(capsys, "--call", 0)
    assert code == 2 and "--call" in err
