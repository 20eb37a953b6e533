"""--labels (issue 20 point 14): a token per absolute position beside each
query and over each key, in print, mask mode and the app's grid; a comma
list or @FILE; bad labels one line, exit 2."""

from __future__ import annotations

import asyncio
import re

import numpy as np
import pytest

from maskattn_tui.cli.commands import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_print_shows_a_token_per_position(capsys):
    code, out, err = run(capsys, "print", "--step", "2", "--labels", "The,cat,sat", "--width", "100")
    assert code == 0, err
    # step 2: causal over 3 positions, query row 1 selected
    assert re.search(r"^ +│ The cat sat$", out, re.M)
    assert re.search(r"^   q0 The │ ✓   F   F$", out, re.M)
    assert re.search(r"^▶● q1 cat │ ✓   ✓   F$", out, re.M)
    assert re.search(r"^   q2 sat │ ✓   ✓   ✓$", out, re.M)


def test_labels_from_a_file_for_an_explore_configuration(capsys, tmp_path):
    path = tmp_path / "tokens.txt"
    path.write_text("<s>\nHello\n,\nworld\n!\n", encoding="utf-8")  # a comma is a token too
    code, out, err = run(capsys, "print", "--past", "3", "--new", "2", "--labels", f"@{path}", "--width", "100")
    assert code == 0, err
    # queries at positions 3 and 4 are "world" and "!"; PAD none; causal
    assert re.search(r"^▶● q3 world │ ✓     ✓     ✓     ✓     F$", out, re.M)
    assert re.search(r"│ <s>   Hello ,     world !$", out, re.M)


def test_print_mask_with_labels(capsys, tmp_path):
    path = tmp_path / "m.npy"
    np.save(path, np.tril(np.ones((4, 4), bool)))
    code, out, err = run(capsys, "print", "--mask", str(path), "--labels", "a,b,c,d", "--width", "100")
    assert code == 0, err
    assert len(re.findall(r"q2 c +│ ✓   ✓   ✓   F", out)) == 2  # your mask and the rule's


@pytest.mark.parametrize("labels, word", [
    ("a,b", "2 labels, but the table has 3 positions"),
    ("a,,c", "label 1 is empty"),
    ("a,b\x1b[2J,c", "control character"),
    ("a," + "x" * 30 + ",c", "longer than 24"),
    ("@/nonexistent/tokens.txt", "does not exist"),
    ("@/", "is not a file"),
])
def test_bad_labels_are_one_line_exit_2(capsys, labels, word):
    code, out, err = run(capsys, "print", "--step", "1", "--labels", labels)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and word in err and "\x1b" not in err


def test_a_binary_labels_file_is_refused(capsys, tmp_path):
    path = tmp_path / "t.bin"
    path.write_bytes(b"\xff\xfe\x00\x01")
    code, _, err = run(capsys, "print", "--step", "1", "--labels", f"@{path}")
    assert code == 2 and "not UTF-8 text" in err


def test_the_apps_grid_shows_the_labels():
    from maskattn_tui.tui import make_app

    async def grid_text():
        app = make_app(step=2, labels=("The", "cat", "sat", "on", "mat"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            figure = app.query_one("#grid").figure
            return ["".join(s.text for s in figure.full(y)).rstrip() for y in range(figure.height)]

    lines = asyncio.run(grid_text())
    assert "▶● q1 cat │ ✓   ✓   F" in lines
    assert any(re.fullmatch(r" +│ The cat sat", line) for line in lines)


def test_json_names_each_query_and_key(capsys):
    import json

    code, out, err = run(capsys, "json", "--past", "2", "--new", "3", "--labels", "The,cat,sat,on,mat")
    assert code == 0, err
    step = json.loads(out)["steps"][-1]
    assert step["query_positions"] == [2, 3, 4] and step["key_positions"] == [0, 1, 2, 3, 4]
    assert step["query_labels"] == ["sat", "on", "mat"]
    assert step["key_labels"] == ["The", "cat", "sat", "on", "mat"]
    code, out, err = run(capsys, "json", "--step", "5", "--labels", "a,b,c,d,e")
    assert code == 0, err
    step = json.loads(out)["steps"][0]
    assert step["query_positions"] == [3, 4] and step["query_labels"] == ["d", "e"]


def test_json_without_labels_has_no_label_fields(capsys):
    import json

    code, out, err = run(capsys, "json", "--step", "2")
    assert "query_labels" not in json.loads(out)["steps"][0]


def test_json_refuses_a_wrong_count(capsys):
    code, out, err = run(capsys, "json", "--past", "2", "--new", "3", "--labels", "a,b")
    assert code == 2 and out == "" and err.count("\n") == 1 and "5 positions" in err


def test_export_draws_the_labels_on_the_explore_frame(capsys, tmp_path):
    code, out, err = run(capsys, "export", "--out", str(tmp_path), "--format", "txt", "--size", "100x30",
                         "--past", "1", "--new", "2", "--labels", "Xa,Yb,Zc")
    assert code == 0, err
    explore = (tmp_path / "explore-en.txt").read_text(encoding="utf-8")
    assert re.search(r"q1 Yb", explore) and re.search(r"q2 Zc", explore)
    # the walkthrough's frames have 5 positions, not the configuration's 3: no labels there
    assert "Yb" not in (tmp_path / "step2-en.txt").read_text(encoding="utf-8")
