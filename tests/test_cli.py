"""The command line: misuse gives one line and exit 2; outputs are right."""

import subprocess
import sys

import pytest

from maskattn_tui.cli import main
from helpers import run_main

MISUSE = [
    ["--step", "0"], ["--step", "6"], ["--step", "x"], ["--lang", "fr"], ["bogus"],
    ["print", "--width", "-3"], ["print", "--width", "abc"], ["print", "--step", "0"],
    ["print", "--step", "7"], ["print", "--lang", "de"], ["print", "--all", "--step", "2"],
    ["json", "--step", "6"], ["json", "--lang", "fr"], ["check", "--bogus"], ["--dwell", "0"],
    ["--dwell", "nan"], ["--exit-at-end"],
]


run = run_main  # what the command says, in this environment (plus `env`), in this process


@pytest.mark.parametrize("argv", MISUSE, ids=[" ".join(a) for a in MISUSE])
def test_misuse_is_one_line_exit_2(argv):
    r = run(*argv)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and lines[0].startswith("maskattn-tui")
    assert r.stdout == ""


def test_misuse_message_in_chinese_when_the_locale_is_chinese():
    r = run("--step", "9", env={"LC_ALL": "zh_CN.UTF-8"})
    assert r.returncode == 2 and "必须是 1 到 5 的整数" in r.stderr


def test_help_and_version():
    r = run("--help")
    assert r.returncode == 0 and "print" in r.stdout and "json" in r.stdout and "check" in r.stdout
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("maskattn-tui ")


def test_check_passes_and_reports_each(capsys):
    assert main(["check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("PASS") for line in out) == 7
    assert out[-1] == "7 of 7 checks passed"


def test_check_json(capsys):
    import json

    assert main(["check", "--json", "--lang", "zh"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["passed"] == doc["total"] == 7
    assert all(c["passed"] for c in doc["checks"])


def test_check_fails_when_an_oracle_is_broken(monkeypatch, capsys):
    from maskattn_tui.lesson import checks

    broken = dict(checks.chapter_run())
    broken["outputs"] = [[10.0], [16.7], [22.55234765226831]]
    monkeypatch.setattr(checks, "chapter_run", lambda: broken)
    assert main(["check"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_print_is_plain_when_not_a_terminal():
    r = run("print", "--all")
    assert r.returncode == 0
    assert "\x1b[" not in r.stdout
    for k in range(1, 6):
        assert f"step {k} of 5" in r.stdout
    assert "0.6698" in r.stdout and "22.5523" in r.stdout


def test_print_colour_only_when_allowed():
    colour = run("print", "--step", "2", env={"TTY_COMPATIBLE": "1", "NO_COLOR": ""})
    assert "\x1b[" in colour.stdout
    for env, extra in (({"TTY_COMPATIBLE": "1", "NO_COLOR": "1"}, []), ({"TTY_COMPATIBLE": "1"}, ["--no-color"])):
        r = run("print", "--step", "2", *extra, env=env)
        # Emphasis may stay, colours may not: no 38;/48; (fg/bg) sequences.
        assert ";38;" not in r.stdout and "[38;" not in r.stdout and "48;" not in r.stdout


def test_print_width_and_language():
    r = run("print", "--step", "5", "--lang", "zh", "--width", "60")
    assert r.returncode == 0
    assert "第 5 步，共 5 步" in r.stdout
    from rich.cells import cell_len

    assert max(cell_len(line) for line in r.stdout.splitlines()) <= 60


def test_print_ascii_is_ascii():
    r = run("print", "--all", "--ascii", "--lang", "en")
    lines = [ln for ln in r.stdout.splitlines() if not any(ord(ch) > 127 for ch in ln)]
    # English F12 texts may hold a few typographic characters (≤, −∞) but the
    # grid and bars must be pure ASCII.
    assert "+---" in r.stdout or "|" in r.stdout
    assert "█" not in r.stdout and "✓" not in r.stdout and "╭" not in r.stdout
    assert len(lines) > 50


def test_print_broken_pipe_is_quiet():
    p = subprocess.Popen([sys.executable, "-m", "maskattn_tui", "print", "--all"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.read(10)
    p.stdout.close()
    err = p.stderr.read().decode()
    p.wait(timeout=60)
    assert "Traceback" not in err


@pytest.mark.parametrize("env, terminal, expected", [
    ({"LANG": "en_US.UTF-8"}, True, False),
    ({"LANG": "C"}, True, True),
    ({"LC_ALL": "zh_CN.GB2312", "LANG": "en_US.UTF-8"}, True, True),
    ({"LC_ALL": "", "LC_CTYPE": "C.UTF-8"}, True, False),
    ({"LANG": "en_US.UTF-8", "TERM": "linux"}, True, True),
    ({"LANG": "en_US.UTF-8", "TERM": "linux"}, False, False),
    ({}, True, False),
], ids=["utf8", "C", "gb2312-wins", "ctype-utf8", "linux-console", "linux-export", "unset"])
def test_ascii_is_chosen_automatically(env, terminal, expected):
    from maskattn_tui.cli import ascii_wanted

    assert ascii_wanted(False, env, terminal=terminal) is expected
    assert ascii_wanted(True, env, terminal=terminal) is True


GC_PROBE = """
import atexit, gc, io, sys, contextlib
# Registered first, so it runs last at exit (atexit is last in, first out).
atexit.register(lambda: sys.stderr.write(f"at exit: frozen={gc.get_freeze_count() > 0}\\n"))
from maskattn_tui import cli
# The TUI and export, as they would start: with the collector on? (The
# TUI is told whether to resume a paused one once its screen is drawn.)
for name in (None, "export"):
    cli.COMMANDS[name] = lambda args, lang: sys.stderr.write(
        f"command: gc enabled={gc.isenabled()} app resumes={getattr(args, 'gc_paused', False)}\\n") and 0
sys.argv = ["maskattn-tui", *sys.argv[1:]]
try:
    with contextlib.redirect_stdout(io.StringIO()):
        status = cli.main(ARGV)
except SystemExit:
    pass
sys.stderr.write(f"after main: gc enabled={gc.isenabled()}\\n")
"""


def gc_probe(argv, *args):
    err = subprocess.run([sys.executable, "-c", GC_PROBE.replace("ARGV", argv), *args],
                         capture_output=True, text=True, check=True).stderr
    return [line for line in err.splitlines() if not line.startswith("maskattn-tui: error")]


@pytest.mark.parametrize("command", [["print"], ["json"], ["check"], ["--help"], ["print", "--step", "9"]],
                         ids=["print", "json", "check", "help", "usage-error"])
def test_a_short_run_as_the_program_skips_garbage_collection(command):
    # main() reading sys.argv (the console script, python -m): no cyclic GC
    # during the run and a frozen heap at exit, which the interpreter then
    # does not walk (a faster exit, same output).
    assert gc_probe("None", *command) == ["after main: gc enabled=False", "at exit: frozen=True"]


@pytest.mark.parametrize("command", [[], ["--step", "2"]], ids=["tui", "tui-step"])
def test_the_tui_starts_with_garbage_collection_paused_and_resumes_it(command):
    # Collecting among the objects of the start (imports, app, first
    # drawing) is wasted work: the app resumes the collector once its first
    # screen is drawn (tests/test_tui_drawing.py checks that part).
    assert gc_probe("None", *command)[0] == "command: gc enabled=False app resumes=True"


def test_export_runs_with_garbage_collection():
    assert gc_probe("None", "export", "--out", "x") == [
        "command: gc enabled=True app resumes=False", "after main: gc enabled=True", "at exit: frozen=False"]


def test_main_called_with_argv_leaves_garbage_collection_alone():
    assert gc_probe("['print', '--step', '2']") == ["after main: gc enabled=True", "at exit: frozen=False"]


# argparse's own messages ("unrecognized arguments", "invalid choice"...),
# produced by argparse itself, not written out here.
ARGPARSE_MISUSE = [["--bogus"], ["frob"], ["export"], ["print", "--width"], ["check", "--bogus"],
                   ["print", "--step"], ["--ste", "2", "--st"]]
ARGPARSE_ENGLISH = ("argument ", "unrecognized", "expected", "invalid choice", "required", "choose from",
                    "ambiguous", "not allowed")


@pytest.mark.parametrize("argv", MISUSE + ARGPARSE_MISUSE, ids=[" ".join(a) for a in MISUSE + ARGPARSE_MISUSE])
def test_misuse_in_chinese_has_no_argparse_english(argv):
    r = run(*argv, env={"LC_ALL": "zh_CN.UTF-8"})
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith("maskattn-tui：错误："), r.stderr
    assert not any(phrase in r.stderr for phrase in ARGPARSE_ENGLISH), r.stderr


def argparse_errors() -> list[str]:
    """Real argparse messages from a throwaway parser (this Python's argparse)."""
    import argparse

    class Raising(argparse.ArgumentParser):
        def error(self, message):
            raise ValueError(message)

    parser = Raising(prog="x")
    parser.add_argument("--count", type=int)
    parser.add_argument("--mode", choices=["a", "b"])
    parser.add_argument("--pair", nargs=2)
    parser.add_argument("--many", nargs="+")
    parser.add_argument("--opt", nargs="?")
    parser.add_argument("--flag", action="store_true")
    parser.add_argument("--flat", action="store_true")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--left", action="store_true")
    group.add_argument("--right", action="store_true")
    sub = parser.add_subparsers(dest="command")
    needs = sub.add_parser("needs")
    needs.add_argument("--out", required=True)
    messages = []
    for argv in (["--count", "x"], ["--mode", "c"], ["--pair", "1"], ["--many"], ["--nope"], ["--count"],
                 ["--fl"], ["--left", "--right"], ["--flag=1"], ["needs"], ["frob"]):
        try:
            parser.parse_args(argv)
        except ValueError as e:
            messages.append(str(e))
    return messages


def test_the_english_templates_rebuild_argparse_messages_and_each_is_translated():
    from maskattn_tui.cli.messages import PATTERNS, argparse_message
    from maskattn_tui.i18n import t

    messages = argparse_errors()
    assert len(messages) == 11
    for message in messages:
        match = next((m, key) for pattern, key in PATTERNS if (m := pattern.fullmatch(message)))
        groups, key = match[0].groupdict(), match[1]
        if "detail" in groups:  # the detail is itself one of the messages
            assert argparse_message(groups["detail"], "zh") != groups["detail"], message
        assert t(key, "en", **groups) == message  # the patterns read argparse's English right
        zh = argparse_message(message, "zh")
        assert not any(phrase in zh for phrase in ARGPARSE_ENGLISH), (message, zh)
        assert argparse_message(message, "en") == message
