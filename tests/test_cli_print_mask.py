"""`print --mask FILE` (issue 20 point 14): mask mode's blocks as text, the
lines the mask screen draws; bad input one line, exit 2."""

from __future__ import annotations

import asyncio
import re

import numpy as np
import pytest

from maskattn_tui.cli.commands import main


def printed(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["print", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def rows_of(text: str) -> list[list[str]]:
    """Each table line's two tables' cells: [left cells, right cells]."""
    out = []
    for line in text.splitlines():
        parts = line.split("│")
        if len(parts) == 3 and re.search(r"q\d+\s*$", parts[0]):
            # the left cells end where the right table's row label starts
            left = re.split(r"\s{2,}[●* ]?\s*q\d+\s*$", parts[1])[0]
            out.append([left.split(), parts[2].split()])
    return out


@pytest.fixture
def hidden_first_key(tmp_path):
    """Causal, with key 0 hidden from every row but its own (written by hand)."""
    mask = np.tril(np.ones((6, 6), bool))
    mask[1:, 0] = False
    path = tmp_path / "m.npy"
    np.save(path, mask)
    return str(path)


def test_print_mask_shows_both_tables_bars_and_findings(capsys, hidden_first_key):
    code, out, err = printed(capsys, "--mask", hidden_first_key, "--width", "100")
    assert code == 0, err
    rows = rows_of(out)
    # your mask and the rule's table, row by row: q0 reads k0; q_i (i >= 1)
    # reads k1..k_i; k0 hidden (×) below row 0, later keys future (F)
    want = [["✓"] + ["F"] * 5] + [["×"] + ["✓"] * i + ["F"] * (5 - i) for i in range(1, 6)]
    assert [user for user, _ in rows] == want
    assert "your mask (True / 1 = attend)" in out
    # the bars of q0: its one visible key holds all the weight
    assert re.search(r"^k0 ✓  █+ 1\.0000$", out, re.M)
    assert len(re.findall(r"^k[1-5] F  ·+ hidden$", out, re.M)) == 5
    assert "Findings (" in out and "How to read the tables" in out


def test_a_large_mask_prints_as_blocks(capsys, tmp_path):
    path = tmp_path / "big.npy"
    np.save(path, np.tril(np.ones((300, 300), bool)))
    code, out, err = printed(capsys, "--mask", str(path), "--width", "100")
    assert code == 0, err
    rows = rows_of(out)
    # blocks of 16: ceil(300 / 16) = 19 block rows; the diagonal blocks partial
    assert len(rows) == 19
    assert rows[0][0][0] == "▒▒·" and rows[1][0][0] == "██▒▒·"


def test_print_mask_is_the_mask_screens_drawing(hidden_first_key):
    """The mask screen's grid pane, read as text, is print's table at its width."""
    from maskattn_tui.maskmode.saved_doc import open_mask
    from maskattn_tui.tui import make_app

    async def grid_lines():
        app = make_app(mask=open_mask(hidden_first_key), block=1)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            view = app.screen.query_one("#mask-grid")
            twin = view.figure
            return ["".join(s.text for s in twin.window(y, 0, view.width())).rstrip()
                    for y in range(twin.height)], view.width()

    lines, width = asyncio.run(grid_lines())
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "maskattn_tui", "print", "--mask", hidden_first_key,
                           "--width", str(width), "--block", "1"], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    printed_lines = done.stdout.split("\n")
    start = printed_lines.index(lines[0])
    assert printed_lines[start:start + len(lines)] == lines


@pytest.mark.parametrize("argv, word", [
    (["--mask", "/nonexistent/m.npy"], "no such file"),
    (["--mask", "M", "--step", "2"], "--step"),
    (["--mask", "M", "--past", "2"], "--past"),
    (["--block", "8"], "--mask"),
])
def test_bad_print_mask_is_one_line_exit_2(capsys, hidden_first_key, argv, word):
    argv = [hidden_first_key if a == "M" else a for a in argv]
    code, out, err = printed(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and word in err
