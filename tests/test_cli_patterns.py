"""The mask patterns from the command line, run as a user would: tables and
reasons in `json`, letters and position ids in `print`, scenario files, and
bad values refused on one line with exit 2 and nothing drawn."""

from __future__ import annotations

import pytest

from test_cli_explore import run, strict_json


def step_of(*argv: str) -> dict:
    done = run("json", *argv)
    assert done.returncode == 0, done.stderr
    return strict_json(done.stdout)["steps"][0]


def bits(step: dict) -> list[str]:
    return ["".join("1" if x else "0" for x in row) for row in step["allowed"]]


def test_json_published_tables():
    assert bits(step_of("--past", "4", "--new", "2", "--window", "3")) == ["001110", "000111"]
    assert bits(step_of("--past", "0", "--new", "5", "--prefix", "2")) == ["11000", "11000", "11100", "11110", "11111"]
    docs = step_of("--past", "0", "--new", "8", "--documents", "3,2,3")
    assert [sum(r) for r in docs["allowed"]] == [1, 2, 3, 1, 2, 1, 2, 3]
    assert docs["query_position_ids"] == [0, 1, 2, 0, 1, 0, 1, 2]
    assert docs["query_positions"] == list(range(8))
    tree = step_of("--past", "3", "--new", "5", "--tree=-1,0,0,1,2")
    assert bits(tree) == ["11110000", "11111000", "11110100", "11111010", "11110101"]
    assert tree["query_position_ids"] == [3, 4, 4, 5, 5]
    assert tree["key_position_ids"] == [0, 1, 2, 3, 4, 4, 5, 5]


def test_json_cells_name_every_rule_in_order():
    step = step_of("--past", "4", "--new", "4", "--chunk", "3")
    assert step["cells"][0] == ["chunk", "chunk", "chunk", "allowed", "allowed", "future", "future+chunk",
                                "future+chunk"]
    step = step_of("--past", "0", "--new", "6", "--documents", "3,3", "--window", "2", "--pad", "1",
                   "--pad-side", "right")
    # query 5 (the PAD position itself), key 0: outside the window and another document
    assert step["cells"][5][0] == "window+document"
    assert step["cells"][4][5] == "future+pad"


def test_existing_json_is_unchanged_apart_from_position_ids():
    step = step_of("--past", "3", "--new", "2", "--pad", "1")
    assert {c for row in step["cells"] for c in row} == {"allowed", "future", "pad"}
    assert step["query_position_ids"] == step["query_positions"]
    assert step["key_position_ids"] == step["key_positions"]


def test_print_shows_letters_legend_and_position_ids():
    done = run("print", "--past", "3", "--new", "5", "--tree=-1,0,0,1,2", "--width", "120", "--ascii")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "T  not an ancestor (tree)" in out
    # under the table, as the grid pane shows them: past + each node's depth
    assert "position ids (RoPE): queries 3,4,4,5,5 | keys 0,1,2,3,4,4,5,5" in " ".join(out.split())


def test_print_lens_window_numbers_in_both_languages():
    for lang, word in (("en", "Arguments for this pattern: "), ("zh", "本模式的参数：")):
        done = run("print", "--past", "4", "--new", "2", "--window", "3", "--lens", "hf,flash,flex",
                   "--lang", lang, "--width", "120")
        assert done.returncode == 0, done.stderr
        assert f"{word}sliding_window = 3" in done.stdout
        assert f"{word}window_size = [2, 0]" in done.stdout
        assert "def mask_mod(b, h, q_idx, kv_idx):" in done.stdout


def test_experiments_run_from_the_command_line():
    step = step_of("--past", "0", "--new", "8", "--documents", "3,2,3", "--experiment",
                   "window-off-by-one,positions-only,chunk-history")
    ex = step["experiments"]
    leaks = ex["positions-only"]["exposed"]
    # every leaking cell crosses a document boundary of 3,2,3
    doc = [0, 0, 0, 1, 1, 2, 2, 2]
    assert leaks and all(doc[r] != doc[k] and k <= r for r, k in leaks)
    assert len(leaks) == 3 + 3 + 5 + 5 + 5
    assert ex["window-off-by-one"]["assumed"] is True
    step = step_of("--past", "4", "--new", "2", "--window", "3", "--experiment", "window-off-by-one")
    w = step["experiments"]["window-off-by-one"]
    assert w["keys_correct"] == [3, 3] and w["keys_wrong"] == [4, 4]
    assert w["exposed"] == [[0, 1], [1, 2]]
    step = step_of("--past", "4", "--new", "2", "--experiment", "chunk-history")
    h = step["experiments"]["chunk-history"]
    # the chunk masked as if alone: q4 and q5 each lose the 4 cached keys k0-k3
    assert h["history_hidden"] == [4, 4]
    assert {k for _, k in h["hidden"]} == {0, 1, 2, 3}


@pytest.mark.parametrize("argv, option, words", [
    (["--window", "0"], "--window", "window must be from 1 to 1048576"),
    (["--chunk", "0"], "--chunk", "chunk must be from 1 to 1048576"),
    (["--prefix=-1"], "--prefix", "prefix must be from 0 to 5"),
    (["--past", "0", "--new", "8", "--documents", "3,2"], "--documents", "sum to 5, but past + new = 8"),
    (["--documents", "3,x"], "--documents", "expected whole numbers separated by commas"),
    (["--past", "3", "--new", "5", "--tree=-1,0,0"], "--tree", "got 3, want new = 5"),
    (["--past", "3", "--new", "5", "--tree=-1,0,4,1,2"], "--tree", "draft node 2 must be -1"),
    (["--window", "2", "--chunk", "3"], "--chunk", "window and chunk do not combine"),
])
@pytest.mark.parametrize("command", ["print", "json"])
def test_bad_values_one_line_exit_2_nothing_drawn(command, argv, option, words):
    done = run(command, *argv)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert option in lines[0] and words in lines[0]


def test_bad_values_in_chinese():
    done = run("json", "--past", "0", "--new", "8", "--documents", "3,2", "--lang", "zh")
    assert done.returncode == 2 and "之和为 5，但 past + new = 8" in done.stderr


def test_scenario_files_carry_the_patterns(tmp_path):
    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.explore.scenario_file import dumps_scenario, loads_scenario

    for config in (ExploreConfig(past=0, new=8, documents=(3, 2, 3), window=2),
                   ExploreConfig(past=3, new=5, tree=(-1, 0, 0, 1, 2)),
                   ExploreConfig(past=2, new=6, chunk=4, pad=1), ExploreConfig(past=0, new=5, prefix=2)):
        assert loads_scenario(dumps_scenario(config)) == config
    path = tmp_path / "tree.toml"
    path.write_text("past = 3\nnew = 5\ntree = [-1, 0, 0, 1, 2]\n", encoding="utf-8")
    assert bits(step_of("--scenario", str(path)))[2] == "11110100"
    path.write_text("past = 3\nnew = 5\ntree = [-1, 0, 7, 1, 2]\n", encoding="utf-8")
    done = run("json", "--scenario", str(path))
    assert done.returncode == 2 and "key 'tree'" in done.stderr and "draft node 2" in done.stderr
    path.write_text('past = 0\nnew = 8\ndocuments = "3,2,3"\n', encoding="utf-8")
    done = run("json", "--scenario", str(path))
    assert done.returncode == 2 and "array of whole numbers" in done.stderr
