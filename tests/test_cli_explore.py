"""`print` and `json` with --lens and --experiment, run as a user would
(a subprocess), in both languages; expectations written by hand from
the libraries' conventions (docs/usage.md, the lens) and the chapter."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from rich.cells import cell_len

from helpers import LOCALE_VARS, run_main


def run(*argv, env=None):
    """In English by LANG (no LC_* variable over it), without colour (plus `env`)."""
    return run_main(*argv, env={"LANG": "en_US.UTF-8", "NO_COLOR": "1", **(env or {})}, drop=LOCALE_VARS)


def strict_json(text: str) -> dict:
    def no_constant(name):
        raise AssertionError(f"non-standard JSON token {name}")

    return json.loads(text, parse_constant=no_constant)


T, F = True, False
SDPA_BOOL = [[T, T, T, T, F], [T, T, T, T, T]]  # past = 3, new = 2: rows 11110 / 11111
MHA = [[F, F, F, F, T], [F, F, F, F, F]]  # True = blocked: rows 00001 / 00000

WORDS = {
    "en": {"lens": "API lens", "same": "What it lets through is our table.", "blocked": "True = blocked",
           "experiments": ["Leak probe", "Offset bug", "Polarity bug", "Causal off"],
           "default": "No explore options given", "title": "Explore: past = 3, new = 2", "counter": "step 1 of 1"},
    "zh": {"lens": "API 视角", "same": "它放行的正是我们的表。", "blocked": "True = 屏蔽",
           "experiments": ["泄漏探针", "偏移错误", "极性错误", "关闭因果"],
           "default": "未给出探索选项", "title": "探索：past = 3，new = 2", "counter": "第 1 步，共 1 步"},
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_print_lens_all_on_an_f12_step(lang):
    r = run("print", "--lens", "all", "--lang", lang)
    assert r.returncode == 0, r.stderr
    w = WORDS[lang]
    assert w["lens"] in r.stdout
    for n in range(1, 9):
        assert f"\n{n}. " in r.stdout
    # step 1: three positions, no cache, no PAD: every API spells the same table
    assert r.stdout.count(w["same"]) == 8
    # the lens comes after the bars
    assert r.stdout.index(w["lens"]) > r.stdout.index("0.0000")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_json_lens_on_the_running_example(lang):
    r = run("json", "--lens", "sdpa-bool,mha-attn-mask", "--past", "3", "--new", "2", "--lang", lang)
    assert r.returncode == 0, r.stderr
    doc = strict_json(r.stdout)
    (step,) = doc["steps"]
    assert step["kind"] == "explore"
    assert step["query_is_pad"] == [False, False]
    assert [x["lens"] for x in step["api_lens"]] == ["sdpa-bool", "mha-attn-mask"]
    sdpa, mha = step["api_lens"]
    assert sdpa["value"] == SDPA_BOOL and sdpa["matches"] is True
    assert mha["value"] == MHA and mha["table"] == SDPA_BOOL and mha["matches"] is True
    assert mha["meaning"] == WORDS[lang]["blocked"]
    assert "experiments" not in step


def test_json_lens_on_every_f12_step():
    doc = strict_json(run("json", "--lens", "torch-is-causal").stdout)
    assert len(doc["steps"]) == 5
    by_kind = {s["step"]: s["api_lens"][0] for s in doc["steps"]}
    for step in (1, 2, 3):  # L = S: top-left is right
        assert by_kind[step]["matches"] is True
    # step 5 has a cache (past = 3, new = 2): is_causal gives rows 10000 / 11000
    assert by_kind[5]["table"] == [[T, F, F, F, F], [T, T, F, F, F]]
    assert sorted(map(tuple, by_kind[5]["differs"])) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (1, 4)]
    assert all("query_is_pad" not in s for s in doc["steps"])


def test_json_query_is_pad_from_the_configuration():
    doc = strict_json(run("json", "--past", "3", "--new", "2", "--pad", "4").stdout)
    assert doc["steps"][0]["query_is_pad"] == [True, False]  # PAD at 0-3 covers query 3


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_print_all_experiments(lang):
    r = run("print", "--experiment", "all", "--past", "3", "--new", "2", "--lang", lang)
    assert r.returncode == 0, r.stderr
    w = WORDS[lang]
    positions = [r.stdout.index(f"\n{title}\n") for title in w["experiments"]]  # each title on its own line
    assert positions == sorted(positions)
    assert w["default"] not in r.stdout  # the configuration was given
    # the heading is the configuration's title, not "step 1 of 1"
    assert any(w["title"] in line and "───" in line for line in r.stdout.splitlines())
    assert w["counter"] not in r.stdout
    assert "9999" in r.stdout
    assert r.stdout.index(w["experiments"][0]) > r.stdout.index("0.0000")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_json_leak_probe_on_the_default_configuration(lang):
    r = run("json", "--experiment", "leak-probe", "--lang", lang)
    assert r.returncode == 0, r.stderr
    (step,) = strict_json(r.stdout)["steps"]
    assert step["past"] == 3 and step["query_positions"] == [3, 4]
    probe = step["experiments"]["leak-probe"]
    assert list(step["experiments"]) == ["leak-probe"]
    assert probe["probe_keys"] == [4] and probe["value"] == 9999
    assert probe["guarded_rows"] == [0]
    assert probe["correct_unchanged"] is True and probe["leak_rows"] == [0]
    assert probe["correct_before"]["outputs"][0] == probe["correct_after"]["outputs"][0]
    assert probe["broken_after"]["outputs"][0] != probe["broken_before"]["outputs"][0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_print_experiment_alone_says_it_uses_the_defaults(lang):
    r = run("print", "--experiment", "leak-probe", "--lang", lang)
    assert r.returncode == 0, r.stderr
    assert WORDS[lang]["default"] in r.stdout
    assert WORDS[lang]["experiments"][0] in r.stdout and WORDS[lang]["experiments"][1] not in r.stdout


@pytest.mark.parametrize("command", ["print", "json"])
@pytest.mark.parametrize("option, value", [("--lens", "sdpa"), ("--lens", "hf,nope"), ("--experiment", "leak"),
                                           ("--experiment", ",")])
def test_bad_names_are_one_line_and_exit_2(command, option, value):
    r = run(command, option, value)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and "choose from" in lines[0]


def test_bad_name_in_chinese():
    r = run("json", "--experiment", "leak", "--lang", "zh")
    assert r.returncode == 2 and "未知的实验" in r.stderr


@pytest.mark.parametrize("width", [80, 140])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_print_everything_fits_the_width(lang, width):
    r = run("print", "--past", "3", "--new", "2", "--lens", "all", "--experiment", "all", "--lang", lang,
            "--width", str(width))
    assert r.returncode == 0, r.stderr
    assert max(cell_len(line) for line in r.stdout.splitlines()) <= width


def test_print_ascii_sections_are_pure_ascii():
    r = run("print", "--past", "3", "--new", "2", "--lens", "all", "--experiment", "all", "--ascii", "--lang", "en")
    assert r.returncode == 0, r.stderr
    start = r.stdout.index("API lens")
    end = r.stdout.index("= Explanation =")
    part = r.stdout[start:end]
    assert sorted({ch for ch in part if ord(ch) > 127}) == []
    assert re.search(r"q3 0 +0 +0 +0 +-inf", part)  # the float mask, spelled in ASCII


@pytest.mark.parametrize("argv", [["print", "--lens", "all", "--experiment", "all"],
                                  ["json", "--lens", "all", "--experiment", "all"]], ids=["print", "json"])
def test_lens_and_experiments_do_not_import_textual(argv):
    code = (
        "import sys, io, contextlib\nfrom maskattn_tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({argv!r})\n"
        "print('textual' in {m.split('.')[0] for m in sys.modules})"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_json_everything_with_empty_rows_is_strict():
    # PAD over 0-3 hides everything from q3; under "nan" its weights are NaN -> null
    r = run("json", "--past", "3", "--new", "2", "--pad", "4", "--empty-row", "nan", "--lens", "all",
            "--experiment", "all")
    assert r.returncode == 0, r.stderr
    (step,) = strict_json(r.stdout)["steps"]
    float_mask = next(x for x in step["api_lens"] if x["lens"] == "sdpa-float")
    assert float_mask["value"][0] == ["-inf"] * 5 and float_mask["empty_rows"] == [0]
    assert step["weights"][0] is None
    # in the experiments each NaN is null, and without the causal rule q3 reads k4
    assert step["experiments"]["leak-probe"]["correct_before"]["weights"][0] == [None] * 5
    assert step["experiments"]["causal-off"]["off_result"]["weights"][0] == [0.0, 0.0, 0.0, 0.0, 1.0]
