"""The doctor's report as text (issue 20, polish): no slice line for one
slice, no "1 queries", the reading's fit explained, findings wrapped with a
hanging indent, a left-padded HF eager mask's PAD rows told once, large
counts with thousands separators."""

from __future__ import annotations

import re

import numpy as np
import pytest

from maskattn_tui.cli.commands import main


def doctor(capsys, monkeypatch, *argv: str, columns: int = 100) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    main(["doctor", *argv])
    return capsys.readouterr().out


def saved(tmp_path, name, array) -> str:
    path = tmp_path / name
    np.save(path, array)
    return str(path)


def left_padded_hf_eager(rows=5, pad=2):
    """HF eager's 4-D additive mask for one left-padded sequence (written by
    hand: causal, keys < pad hidden from every row, finfo(float32).min)."""
    m = np.full((rows, rows), np.finfo(np.float32).min, np.float32)
    for q in range(rows):
        m[q, pad:q + 1] = 0
    return m[None, None]


def test_one_slice_has_no_slice_line(capsys, monkeypatch, tmp_path):
    one = saved(tmp_path, "one.npy", np.tril(np.ones((5, 5), bool))[None, None])
    assert "distinct slices" not in doctor(capsys, monkeypatch, one)
    two = np.stack([np.tril(np.ones((5, 5), bool)), np.ones((5, 5), bool)])[:, None]
    assert "2 distinct slices" in doctor(capsys, monkeypatch, saved(tmp_path, "two.npy", two))


def test_no_singular_plural_slips(capsys, monkeypatch, tmp_path):
    out = doctor(capsys, monkeypatch, saved(tmp_path, "row.npy", np.ones((1, 5), bool)))
    assert "mask: 1 x 5 (queries x keys), bool" in out and "1 queries" not in out


def test_the_reading_says_what_its_score_is(capsys, monkeypatch, tmp_path):
    out = doctor(capsys, monkeypatch, saved(tmp_path, "c.npy", np.tril(np.ones((4, 4), bool))))
    assert re.search(r"\(fit 1\.00: the share of rows whose last visible key is on this diagonal\)", out)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_findings_wrap_with_a_hanging_indent(capsys, monkeypatch, tmp_path, lang):
    from maskattn_tui.cjk_wrap import cell_width

    out = doctor(capsys, monkeypatch, saved(tmp_path, "hf.npy", left_padded_hf_eager()), "--lang", lang,
                 columns=80)
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"^  \[", line))
    finding = []
    for line in lines[start:]:  # the findings: indented lines up to the table's heading
        if not line.startswith("  "):
            break
        finding.append(line)
    head = re.match(r"^  \[[^\]]+\] ", finding[0])[0]
    assert len(finding) >= 3 and all(cell_width(line) <= 80 for line in finding)
    assert finding[1].startswith(" " * cell_width(head)) and finding[1].strip()  # under the text, not at 0


def test_left_padded_hf_eager_pad_rows_are_told_once(capsys, monkeypatch, tmp_path):
    out = doctor(capsys, monkeypatch, saved(tmp_path, "hf.npy", left_padded_hf_eager()), columns=160)
    findings = [line for line in out.splitlines() if re.match(r"^  \[", line)]
    assert sum("rows 0-1" in line for line in findings) == 1  # was three findings on rows 0-1
    assert any("PAD themselves and see no key (rows 0-1)" in line for line in findings)


def test_large_counts_have_thousands_separators(capsys, monkeypatch, tmp_path):
    mask = np.tril(np.ones((2048, 2048), bool))
    mask[:5, 5] = True  # five cells of the future
    out = doctor(capsys, monkeypatch, saved(tmp_path, "big.npy", mask), "--expect", "--past", "0", "--new", "2048")
    assert "5 of 4,194,304 cells differ" in out  # 2048 * 2048


def test_one_row_is_singular(capsys, monkeypatch, tmp_path):
    mask = np.tril(np.ones((6, 6), bool))
    mask[2, :] = False  # row 2 sees nothing
    out = " ".join(doctor(capsys, monkeypatch, saved(tmp_path, "e.npy", mask)).split())
    assert "1 row has no visible key (row 2)" in out and "1 rows" not in out


def test_one_largest_weight_is_singular():
    from maskattn_tui.maskmode.row_weights import RowWeights
    from maskattn_tui.maskmode.text import bars_caption

    weights = RowWeights(row=0, position=0, scores=np.zeros(3), visible=np.array([True, False, False]),
                         weights=np.array([1.0, 0.0, 0.0]), given=False)
    assert bars_caption(weights, [0], "en", largest=True)[1] == "its largest weight holds 1.0000"
    assert bars_caption(weights, [0, 1], "en", largest=True)[1].startswith("its 2 largest weights")
