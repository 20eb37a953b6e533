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


def test_compact_cells_of_several_rules_do_not_run_together(capsys):
    # issue 20 point 7: at 40 columns the cells are compact (a glyph and a gap);
    # by hand: PAD is k0, k1; a window of 3 blocks k <= p - 3 (q3: k0; q4: k0, k1)
    out = printed(capsys, "--past", "3", "--new", "2", "--pad", "2", "--window", "3", "--width", "40")
    assert table_rows(out) == {"q3": ["#", "P", "✓", "✓", "F"], "q4": ["#", "#", "✓", "✓", "✓"]}
    assert re.search(r"│# P ✓ ✓ F$", out, re.M)  # one glyph and one gap per cell
    legend = " ".join(out.split())
    assert "# several rules block the cell" in legend and "X future + PAD" in legend


def test_marked_compact_cells_keep_a_gap(capsys):
    # step 5 at 40 columns: the row-number table's marked cells "F!" stay apart
    out = printed(capsys, "--step", "5", "--width", "40")
    assert re.search(r"row 0 as pos 0 │✓  F! F! F! F$", out, re.M)
    assert re.search(r"row 1 as pos 1 │✓  ✓  F! F! F!$", out, re.M)


def test_a_short_cache_run_is_labelled_past_not_c(capsys):
    out = printed(capsys, "--past", "2", "--new", "6", "--width", "40")
    assert re.search(r"^ +│past new$", out, re.M)
    assert not re.search(r"│c +new", out)


@pytest.mark.parametrize("argv", [
    ["--past", "1", "--new", "5", "--pad", "1", "--chunk", "2"],  # issue 20's capture
    ["--past", "0", "--new", "4", "--pad", "1", "--chunk", "2", "--empty-row", "zeros"],  # q0 is a PAD row
])
def test_the_header_lines_up_with_the_rows(capsys, argv):
    out = printed(capsys, *argv, "--width", "100")
    table = [line for line in out.splitlines() if "│" in line]
    assert len(table) >= 6
    assert len({line.index("│") for line in table}) == 1, table
    # each key label sits over its column's glyphs
    head = table[0]
    for row in table[3:]:
        for m in re.finditer(r"k\d", head):
            assert row[m.start()] != " ", (head, row)


def test_side_by_side_tables_keep_their_rows_level(capsys):
    # chunk-history: only the right table has a PAD header line; each query's
    # two rows must still share a line (they were one line apart)
    out = printed(capsys, "--experiment", "chunk-history", "--width", "120")
    marked = [line for line in out.splitlines() if "P!" in line]  # the right table's rows
    assert len(marked) == 2
    for q, line in zip(("q3", "q4"), marked):
        assert re.match(rf"^ +{q} +│ ✓ .*  {q} +│ P! ", line), line


TITLES = {  # each experiment's two table titles (strings in render_explore / render_patterns)
    "leak-probe": ("render.x.leak.correct_table", "render.x.leak.broken.causal-off"),
    "offset-bug": ("render.x.offset.correct_table", "render.x.offset.wrong_table"),
    "causal-off": ("render.x.causal_off.on", "render.x.causal_off.off"),
    "window-off-by-one": ("render.x.window.correct_table", "render.x.window.wrong_table"),
    "positions-only": ("render.x.positions.correct_table", "render.x.positions.wrong_table"),
    "chunk-history": ("render.x.history.correct_table", "render.x.history.wrong_table"),
}


@pytest.mark.parametrize("width", [60, 120])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_experiment_table_titles_are_whole(capsys, width, lang):
    # issue 20 point 10: a right table's title was cut ("top-left tril over")
    from maskattn_tui.i18n import t

    out = printed(capsys, "--past", "3", "--new", "3", "--window", "2", "--experiment", ",".join(TITLES),
                  "--width", str(width), "--lang", lang)
    flat = "".join(out.split()) if lang == "zh" else " ".join(out.split())
    for name, keys in TITLES.items():
        for key in keys:
            title = t(key, lang)
            want = "".join(title.split()) if lang == "zh" else " ".join(title.split())
            assert want in flat, (name, title)
    assert all(len(line) <= width for line in out.splitlines())


def test_compact_key_labels_are_never_cut_at_the_table_edge(capsys, tmp_path):
    # issue 20 polish: "12288 15" (a label cut by the table's edge); 300 keys in
    # blocks of 16: 19 block columns, a label every 2 (the widest needs 3 cells)
    import numpy as np

    path = tmp_path / "big.npy"
    np.save(path, np.tril(np.ones((300, 300), bool)))
    out = printed(capsys, "--mask", str(path), "--width", "100")
    head = next(line for line in out.splitlines() if line.startswith("queries"))
    labels = re.findall(r"│([^│]*?)(?:  queries|$)", head)
    assert labels and all(set(re.findall(r"\d+", part)) <= {str(16 * k) for k in range(19)} for part in labels)
    assert "288" not in head  # block 18 starts at key 288: no room for a whole label there


@pytest.mark.parametrize("width", [40, 60, 100])
def test_an_outputs_table_is_never_cut(capsys, width):
    # the leak probe on the default configuration (past 3, new 2): with the
    # causal rule off q3 reads k4 = 9999; every number is printed whole, the
    # words of the last column wrap where the page is narrow
    out = printed(capsys, "--experiment", "leak-probe", "--width", str(width))
    table = out[out.index("Outputs"):]
    flat = " ".join(table.split())
    for number in ("40.0257", "48.6115", "8612.6057", "9256.2091"):
        assert number in flat, number
    assert "! changed by 8563.9942" in flat  # 8612.6057 - 48.6115
    if width >= 60:
        assert all(len(line) <= width for line in table.splitlines()[:12])
