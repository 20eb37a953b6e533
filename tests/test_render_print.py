"""`print`'s text, checked against the numbers: what issue 20 found in it."""

from __future__ import annotations

import re

import pytest

from maskattn_tui.cli.commands import main


def printed(capsys, *argv: str) -> str:
    assert main(["print", *argv]) == 0
    return capsys.readouterr().out


def table_rows(text: str) -> dict[str, list[str]]:
    """The query rows of the (first) visibility table: label -> cells."""
    rows: dict[str, list[str]] = {}
    for line in text.splitlines():
        m = re.match(r"^[▶> ][●* ] (q\d+)(?: PAD)?\s*[│|](.*)$", line)
        if m and m[1] not in rows:
            rows[m[1]] = m[2].split()
    return rows


def test_an_explore_print_ends_with_its_own_inputs_once(capsys):
    # issue 20 point 9: the F12 figure's inputs note ended an explore print
    out = printed(capsys, "--past", "3", "--new", "2", "--width", "100")
    assert out.count("Inputs:") == 1
    assert "Inputs declared for this figure" not in out
    # this configuration's own V (seed 0), on its figure
    assert "V = [[10],[80],[10],[60],[50]]" in out
    # the F12 walkthrough keeps its note
    assert "Inputs declared for this figure" in printed(capsys, "--all", "--width", "100")


def test_ascii_writes_sqrt_of_d(capsys):
    out = printed(capsys, "--step", "2", "--ascii", "--width", "100")
    assert "q*k/sqrt(d)" in out and "sqrtd" not in out


def test_a_later_draft_node_is_future_too(capsys):
    # issue 20 point 8: parents -1,0,0,1,2 after 2 cached keys; q2 is node 0,
    # k3..k6 the later nodes 1..4 (never its ancestors): future and tree
    rows = table_rows(printed(capsys, "--past", "2", "--new", "5", "--tree=-1,0,0,1,2", "--width", "120"))
    assert rows["q2"] == ["✓", "✓", "✓", "FT", "FT", "FT", "FT"]
    # q4 is node 2 (parent 0): k3 (node 1, its sibling) is earlier: tree alone
    assert rows["q4"] == ["✓", "✓", "✓", "T", "✓", "FT", "FT"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_print_takes_the_apps_look(capsys, lang):
    # no box drawing of Rich tables: the grid pane's "│" after the labels only
    out = printed(capsys, "--step", "1", "--width", "80", "--lang", lang)
    assert not re.search("[╭╮╰╯┼┬┴]", out)
    assert table_rows(out) == {f"q{i}": ["✓" if j <= i else "F" for j in range(3)] for i in range(3)}
