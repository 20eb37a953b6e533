"""--labels on a configuration shown by blocks is checked against its
positions and shown (the selected row's token and its largest weights'
keys'); a missing @FILE is called missing; a value below the explorer's
floor is refused with the range the command line really takes."""

import json

import pytest

from maskattn_tui.cli import main

N = 70000


@pytest.fixture
def tokens(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    words = [f"w{i}" for i in range(N)]
    (tmp_path / "tok.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    return words


def _run(capsys, *argv):
    code = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_names_the_rows_and_top_keys_tokens(tokens, capsys):
    code, out, err = _run(capsys, "json", "--past", 0, "--new", N, "--window", 4096, "--row", 50000,
                          "--labels", "@tok.txt")
    assert code == 0, err
    row = json.loads(out)["row"]
    assert row["label"] == tokens[row["position"]] == "w50000"
    assert row["top"] and all(entry["label"] == tokens[entry["key"]] for entry in row["top"])
    assert all(50000 - 4096 < entry["key"] <= 50000 for entry in row["top"])  # the window's keys


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_print_names_them_too(tokens, capsys, lang):
    code, out, err = _run(capsys, "print", "--past", 0, "--new", N, "--window", 4096, "--labels", "@tok.txt",
                          "--lang", lang)
    assert code == 0, err
    last = [line for line in out.splitlines() if f"“w{N - 1}”" in line]
    assert len(last) == 1
    doc = json.loads(main(["json", "--past", "0", "--new", str(N), "--window", "4096"]) == 0
                     and capsys.readouterr().out)
    for entry in doc["row"]["top"]:
        assert f"k{entry['key']} “w{entry['key']}”" in last[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_count_that_does_not_match_a_long_rule_is_refused(tokens, capsys, lang):
    code, out, err = _run(capsys, "print", "--past", 0, "--new", N + 1, "--window", 4096, "--labels", "@tok.txt",
                          "--lang", lang)
    assert code == 2 and out == "" and str(N) in err and str(N + 1) in err
    code, out, err = _run(capsys, "json", "--past", 0, "--new", N, "--labels", "a,b", "--lang", lang)
    assert code == 2 and "2" in err and str(N) in err


@pytest.mark.parametrize("lang, missing, not_file", [("en", "does not exist", "is not a file"),
                                                     ("zh", "不存在", "不是文件")])
def test_a_missing_labels_file_is_called_missing(tmp_path, monkeypatch, capsys, lang, missing, not_file):
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "print", "--labels", "@missing.txt", "--lang", lang)
    assert code == 2 and "missing.txt" in err and missing in err and not_file not in err
    (tmp_path / "folder").mkdir()
    code, out, err = _run(capsys, "print", "--labels", "@folder", "--lang", lang)
    assert code == 2 and not_file in err


@pytest.mark.parametrize("argv, hi", [
    (["--new", "0"], "1048576"),
    (["--past", "-1"], "1048576"),
    (["--window", "0"], "1048576"),
    (["--new", "0", "--preset", "causal"], "32"),        # a preset exists only within the explorer's bounds
    (["--new", "0", "--experiment", "leak-probe"], "32"),
])
@pytest.mark.parametrize("command", ["print", "json"])
def test_a_value_below_the_floor_states_the_range_really_taken(capsys, argv, hi, command):
    code, out, err = _run(capsys, command, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"to {hi} (got" in err
