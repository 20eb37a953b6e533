"""Command-line edges from issue 12: no terminal, a closed pipe, a stream that
cannot encode, options before the sub-command, contradicting options, error
lines with control characters or huge values, ASCII output, print --all."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys

import pytest

from maskattn_tui.cli import main
from helpers import EXE, run_cli, run_main

LOCALE = {"LC_ALL": "C.UTF-8"}


def run(*argv, env=None):
    """What the command says, in the C.UTF-8 locale (plus `env`), in this process."""
    return run_main(*argv, env={**LOCALE, **(env or {})})


def out_of(argv) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return buf.getvalue()


def one_error_line(r) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


# --- item 4: no terminal ----------------------------------------------------------


def test_the_app_without_a_terminal_says_so_and_exits_2():
    r = run_cli(env=LOCALE, stdin=subprocess.DEVNULL, timeout=20)  # stdout and stderr are pipes: no terminal at all
    line = one_error_line(r)
    assert "terminal" in line and "print" in line and "json" in line
    assert r.stdout == "" and "\x1b" not in line


def test_no_terminal_in_chinese():
    r = run_cli("--lang", "zh", env=LOCALE, stdin=subprocess.DEVNULL, timeout=20)
    assert "终端" in one_error_line(r)


def test_no_terminal_does_not_load_textual():
    code = ("import sys\nfrom maskattn_tui.cli import commands\nsys.argv=['maskattn-tui']\n"
            "rc = commands.main()\nprint('textual' in sys.modules, rc)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       timeout=20)
    assert r.stdout.split() == ["False", "2"], r.stdout + r.stderr


# --- item 5: a closed pipe -------------------------------------------------------------


@pytest.mark.parametrize("argv", [["print", "--all"], ["print", "--past", "32", "--new", "32", "--lens", "all",
                                                      "--experiment", "all"], ["json", "--lens", "all"]],
                         ids=["print-all", "print-big", "json"])
def test_a_reader_that_leaves_early_is_not_an_error(argv):
    proc = subprocess.Popen([*EXE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "LC_ALL": "C.UTF-8"})
    first = proc.stdout.readline()
    proc.stdout.close()  # `| head -1`
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert first and proc.wait(timeout=60) == 0, err
    assert err == ""


# --- a closed stdout (`>&-`) ----------------------------------------------------------


@pytest.mark.parametrize("argv", [["print"], ["json"], ["check"], ["doctor", "mask.txt"],
                                  ["export", "--out", "frames"]], ids=["print", "json", "check", "doctor", "export"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_closed_stdout_is_one_line_and_exit_2(argv, lang, tmp_path):
    (tmp_path / "mask.txt").write_text("1 0\n1 1\n")
    # The child starts with file descriptor 1 closed, as `maskattn-tui print >&-` does.
    r = run_cli(*argv, "--lang", lang, env=LOCALE, stdout=None, stderr=subprocess.PIPE, capture_output=False,
            preexec_fn=lambda: os.close(1), cwd=tmp_path)
    line = one_error_line(r)
    assert f"'{argv[0]}'" in line or f"“{argv[0]}”" in line
    assert ("standard output" in line) if lang == "en" else ("标准输出" in line)
    assert not (tmp_path / "frames").exists()  # nothing started, nothing half-written


# --- a stream that cannot encode --------------------------------------------------------


@pytest.mark.parametrize("argv", [["json"], ["json", "--lang", "zh"], ["check"], ["--help"], ["print"],
                                  ["print", "--lang", "zh", "--step", "5"], ["check", "--json", "--lang", "zh"]],
                         ids=["json", "json-zh", "check", "help", "print", "print-zh", "check-json-zh"])
def test_an_ascii_only_stream_never_fails(argv):
    r = subprocess.run([*EXE, *argv], capture_output=True, env={**os.environ, "PYTHONIOENCODING": "ascii"},
                       timeout=60)
    assert r.returncode in (0, 1), r.stderr.decode()
    assert b"Traceback" not in r.stderr
    r.stdout.decode("ascii")  # every byte ASCII
    if argv[0] == "json" or "--json" in argv:
        doc = json.loads(r.stdout)
        if "zh" in argv and argv[0] == "json":
            assert "查询" in json.dumps(doc, ensure_ascii=False)  # escaped, not lost


# --- options before the sub-command ------------------------------------------------------


def test_lang_before_print_is_applied():
    assert out_of(["--lang", "zh", "print"]) == out_of(["print", "--lang", "zh"])


def test_step_before_print_and_json_is_applied():
    assert out_of(["--step", "3", "print"]) == out_of(["print", "--step", "3"])
    doc = json.loads(out_of(["--step", "4", "json"]))
    assert [s["step"] for s in doc["steps"]] == [4]


def test_ascii_before_print_is_applied():
    for case in (["--step", "5"], ASCII_CASES[-3]):  # the figure; explore with the lens and experiments
        assert out_of(["--ascii", "print", *case]) == out_of(["print", "--ascii", *case]), case
    out_of(["--ascii", "print", "--step", "5"]).encode("ascii")


def test_an_option_after_the_command_wins_over_the_same_before():
    doc = json.loads(out_of(["--step", "4", "json", "--step", "2"]))
    assert [s["step"] for s in doc["steps"]] == [2]


@pytest.mark.parametrize("argv, option", [
    (["--dwell", "3", "print"], "--dwell"), (["--play", "json"], "--play"), (["--step", "2", "check"], "--step"),
    (["--exit-at-end", "check"], "--exit-at-end"), (["--ascii", "json"], "--ascii"),
    (["--past", "3", "check"], "--past"), (["--step", "2", "export", "--out", "/nonexistent/x"], "--step"),
])
def test_an_option_before_a_command_it_does_not_apply_to_is_refused(argv, option):
    line = one_error_line(run(*argv))
    command = next(a for a in argv if a in ("print", "json", "check", "export"))
    assert option in line and command in line


# --- item 8: contradicting options ----------------------------------------------------------


@pytest.mark.parametrize("argv, options", [
    (["print", "--all", "--past", "3"], ("--all", "--past")),
    (["print", "--all", "--experiment", "leak-probe"], ("--all", "--experiment")),
    (["print", "--step", "2", "--new", "3"], ("--step", "--new")),
    (["json", "--step", "2", "--past", "3"], ("--step", "--past")),
    (["--step", "2", "json", "--scenario", "s.toml"], ("--step", "--scenario")),
    (["print", "--all", "--step", "2"], ("--all", "--step")),
])
def test_contradicting_options_are_refused_naming_both(argv, options):
    line = one_error_line(run(*argv))
    assert all(o in line for o in options), line


def test_contradictions_in_chinese():
    line = one_error_line(run("json", "--step", "2", "--past", "3", "--lang", "zh"))
    assert "--step" in line and "--past" in line and "不能" in line


# --- error lines: control characters and huge values -------------------------------------


@pytest.mark.parametrize("value", ["\x1b[2J", "a\nb", "a\rb", "x\x07y", "\x9b2J"])
def test_control_characters_in_an_echoed_value_are_escaped(value):
    for argv in (["--lens", value, "print"], ["print", "--past", value], ["--step", value],
                 ["print", "--scenario", value + ".toml"], ["bogus" + value]):
        r = run(*argv)
        line = one_error_line(r)
        assert not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in line), (argv, line)


def test_a_long_echoed_list_is_cut_too(tmp_path):
    path = tmp_path / "list.toml"
    path.write_text("past = [" + ", ".join(["1"] * 3000) + "]\n")
    line = one_error_line(run("print", "--scenario", str(path)))
    assert len(line) < 400 and "'past' must be a whole number" in line and line.endswith("1])")


def test_a_huge_echoed_value_is_cut_to_a_readable_length():
    for argv in (["print", "--past", "9" * 5000], ["--step", "7" * 5000], ["print", "--lens", "x" * 5000],
                 ["print", "--scenario", "d" * 5000 + ".toml"]):
        line = one_error_line(run(*argv))
        assert len(line) < 400, (argv[:2], len(line))
        assert "more" in line or "…" in line


# --- item 7 and ASCII: print -----------------------------------------------------------------------


def test_print_all_heads_each_step_with_its_own_title():
    doc = json.loads(out_of(["json"]))
    text = out_of(["print", "--all", "--width", "100"])
    headings = [line for line in text.splitlines() if "step " in line and " of 5" in line]
    assert len(headings) == 5
    for step, heading in zip(doc["steps"], headings):
        assert f"step {step['step']} of 5 · {step['title']}" in heading
    figure_title = "A mask is a visibility table, not extra semantics"
    assert sum(figure_title in h for h in headings) == 0


@pytest.mark.parametrize("argv", [["print", "--all", "--width", "60"], ["print", "--step", "5", "--width", "60"],
                                  ["print", "--past", "3", "--new", "2", "--lens", "all", "--experiment", "all",
                                   "--width", "60"], ["print", "--all", "--width", "60", "--lang", "zh"]])
def test_no_line_ends_in_spaces(argv):
    text = out_of(argv)
    bad = [line for line in text.splitlines() if line != line.rstrip()]
    assert not bad, bad[:3]


ASCII_CASES = [["--step", str(s)] for s in range(1, 6)] + [
    ["--all"], ["--step", "4", "--lens", "all"],
    ["--past", "3", "--new", "2", "--pad", "1", "--lens", "all", "--experiment", "all"],
    ["--past", "0", "--new", "4", "--pad", "2", "--pad-side", "right", "--empty-row", "nan", "--lens", "all",
     "--experiment", "all"],
    ["--past", "2", "--new", "3", "--pad", "5", "--empty-row", "error", "--no-causal", "--lens", "all",
     "--experiment", "all"],
    ["--past", "2", "--new", "3", "--pad", "5", "--empty-row", "uniform", "--experiment", "all"],
]


@pytest.mark.parametrize("width", [40, 41, 47, 55, 60, 73, 80, 99, 120, 160])
def test_print_ascii_is_ascii(width):
    # --ascii before `print` gives the same text: test_ascii_before_print_is_applied
    for case in ASCII_CASES:
        text = out_of(["print", "--ascii", *case, "--width", str(width)])
        bad = sorted({c for c in text if ord(c) > 127})
        assert not bad, (case, bad)


# --- item 9: Chinese help --------------------------------------------------------------------------


def display_width(line: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


@pytest.mark.parametrize("argv", [["--help"], ["print", "--help"], ["export", "--help"], ["check", "--help"]],
                         ids=["main", "print", "export", "check"])
@pytest.mark.parametrize("columns", [60, 80, 120])
def test_chinese_help_has_chinese_headings_and_fits_the_terminal(argv, columns):
    r = run(*argv, env={"LC_ALL": "zh_CN.UTF-8", "COLUMNS": str(columns)})
    assert r.returncode == 0
    for english in ("usage:", "options:", "positional arguments", "show this help message and exit"):
        assert english not in r.stdout
    assert r.stdout.startswith("用法：") and "显示此帮助信息并退出" in r.stdout
    widest = max(r.stdout.splitlines(), key=display_width)
    # argparse keeps an option's name whole, as in English; help text wraps.
    assert display_width(widest) <= columns - 2 or " " not in widest.strip(), widest


def test_lang_zh_on_the_command_line_gives_chinese_help():
    r = run("--lang", "zh", "--help", env={"LC_ALL": "C.UTF-8"})
    assert r.stdout.startswith("用法：")


def test_english_help_keeps_argparse_wording():
    r = run("--help", env={"COLUMNS": "80"})
    assert r.stdout.startswith("usage: ") and "options:" in r.stdout and "show this help message and exit" in r.stdout


def test_an_unknown_command_in_chinese_lists_the_commands():
    from maskattn_tui.cli.messages import argparse_message

    # (the choices are named by the command's own heading, whatever argparse's detail says)
    line = argparse_message("argument {print,json,check,export}: something else", "zh")
    assert "print,json,check,export" in line
    line = one_error_line(run("--lang", "zh", "bogus"))
    assert "子命令" in line and "print" in line and "export" in line
