"""--preset NAME on the command line (issue 20 point 14): the panel's
presets, for the app, `print`, `json` and `export`; other options change
the preset; a bad name is one line, exit 2."""

from __future__ import annotations

import json

import pytest

from maskattn_tui.cli.commands import main
from maskattn_tui.explore.patterns import PRESETS


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cells(capsys, *argv: str) -> list[list[str]]:
    code, out, err = run(capsys, "json", *argv)
    assert code == 0, err
    return json.loads(out)["steps"][0]["cells"]


def test_a_preset_is_its_pattern(capsys):
    # sliding-window: past 4, new 2, W = 3 (HF's count: a key is in the window
    # when p - 3 < k), written by hand: q4 reads k2..k4, q5 reads k3..k5
    W, A, F = "window", "allowed", "future"
    assert cells(capsys, "--preset", "sliding-window") == [[W, W, A, A, A, F], [W, W, W, A, A, A]]


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_prints_as_its_options_do(capsys, name):
    options = []
    for field, value in PRESETS[name].items():
        flag = "--" + field.replace("_", "-")
        options += [f"{flag}={','.join(map(str, value))}" if isinstance(value, tuple) else f"{flag}={value}"]
    code, by_name, err = run(capsys, "print", "--preset", name, "--width", "100")
    assert code == 0, err
    assert run(capsys, "print", *options, "--width", "100")[1] == by_name


def test_options_change_the_preset(capsys):
    # chunked is past 2, new 6, chunks of 4; --new 2 keeps the chunks: q2, q3
    # are in chunk 0 (positions 0-3) and read k0..their own position
    A, F = "allowed", "future"
    assert cells(capsys, "--preset", "chunked", "--new", "2") == [[A, A, A, F], [A, A, A, A]]


def test_a_bad_preset_is_one_line_naming_the_choices(capsys):
    code, out, err = run(capsys, "print", "--preset", "llama")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--preset" in err
    assert all(name in err for name in PRESETS)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_names_every_preset(capsys, lang):
    with pytest.raises(SystemExit):
        main(["print", "--help", "--lang", lang])
    out = " ".join(capsys.readouterr().out.split())
    assert "--preset NAME" in out
    # argparse may break a name at its hyphen: compare without line breaks' spaces
    flat = out.replace("- ", "-")
    assert all(name in flat for name in PRESETS)


def test_the_app_starts_on_the_preset():
    from maskattn_tui.cli.explore_options import config_from_args
    from maskattn_tui.cli.parser import build_parser

    args = build_parser().parse_args(["--preset", "draft-tree"])
    config = config_from_args(args)
    assert (config.past, config.new, config.tree) == (3, 5, (-1, 0, 0, 1, 2))


def test_a_preset_with_step_is_refused(capsys):
    # an explore configuration is one step of its own, as with --past
    code, out, err = run(capsys, "print", "--step", "2", "--preset", "chunked")
    assert code == 2 and out == "" and "--preset" in err and "--step" in err
