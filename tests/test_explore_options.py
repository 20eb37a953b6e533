"""The explore command-line options: parsing, precedence over a scenario
file, and a table of bad values with the message each must give."""

from __future__ import annotations

import argparse

import pytest

from maskattn_tui.errors import MaskattnError
from maskattn_tui.cli.explore_options import add_explore_arguments, config_from_args, lenses_from_args
from maskattn_tui.explore import LENS_NAMES, ExploreConfig, save_scenario


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="maskattn-tui")
    add_explore_arguments(p)
    return p


def parse(*argv: str):
    return parser().parse_args(list(argv))


def test_no_explore_option_means_no_config():
    args = parse()
    assert config_from_args(args) is None
    assert lenses_from_args(args) is None
    # --lens alone applies to whatever is shown; it does not start explore mode
    args = parse("--lens", "hf")
    assert config_from_args(args) is None
    assert lenses_from_args(args) == ("hf",)


def test_every_option():
    args = parse("--past", "5", "--new", "3", "--pad", "2", "--pad-side", "right", "--no-causal",
                 "--temperature", "0.5", "--empty-row", "zeros", "--seed", "42", "--lens", "all")
    assert config_from_args(args) == ExploreConfig(
        past=5, new=3, pad=2, pad_side="right", causal=False, temperature=0.5,
        empty_row_policy="zeros", seed=42,
    )
    assert lenses_from_args(args) == LENS_NAMES


def test_one_option_starts_from_the_defaults():
    assert config_from_args(parse("--pad", "1")) == ExploreConfig(pad=1)
    assert config_from_args(parse("--no-causal")) == ExploreConfig(causal=False)


def test_options_override_the_scenario_file(tmp_path):
    path = save_scenario(ExploreConfig(past=2, new=2, pad=1, temperature=3.0, seed=5), tmp_path / "s.toml")
    assert config_from_args(parse("--scenario", str(path))) == ExploreConfig(
        past=2, new=2, pad=1, temperature=3.0, seed=5
    )
    got = config_from_args(parse("--scenario", str(path), "--past", "4", "--temperature", "1"))
    assert got == ExploreConfig(past=4, new=2, pad=1, temperature=1.0, seed=5)


def test_options_are_not_lost_between_main_parser_and_subcommand():
    # the lead adds the options to the main parser and to `print` / `json`
    main = argparse.ArgumentParser(prog="maskattn-tui")
    add_explore_arguments(main)
    sub = main.add_subparsers(dest="command")
    for name in ("print", "json"):
        add_explore_arguments(sub.add_parser(name))
    assert config_from_args(main.parse_args(["--past", "4", "print"])).past == 4
    assert config_from_args(main.parse_args(["json", "--new", "6"])).new == 6
    both = config_from_args(main.parse_args(["--past", "4", "json", "--new", "6"]))
    assert (both.past, both.new) == (4, 6)
    assert config_from_args(main.parse_args(["print"])) is None


def test_help_lists_every_option_and_lens():
    text = parser().format_help()
    for option in ("--past P", "--new N", "--pad K", "--pad-side left|right", "--no-causal",
                   "--temperature T", "--empty-row POLICY", "--seed S", "--scenario FILE", "--lens NAME"):
        assert option in text
    flat = " ".join(text.split())
    for name in (*LENS_NAMES, "all"):
        assert name in flat
    assert "error, nan, zeros, uniform" in flat
    assert "0–32" in flat and "0.1–10" in flat


def test_help_in_chinese():
    p = argparse.ArgumentParser()
    add_explore_arguments(p, lang="zh")
    assert "探索选项" in p.format_help()


def test_pad_side_metavar_names_the_sides():
    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.explore.fields import BY_NAME

    sides = BY_NAME["pad_side"].choices
    assert "  --pad-side left|right\n" in parser().format_help() and "|".join(sides) == "left|right"
    for side in sides:  # each side the help names is one the configuration takes
        assert ExploreConfig(pad=1, pad_side=side).pad_side == side


def test_no_causal_is_a_flag():
    p = parser()
    assert vars(p.parse_args(["--no-causal"])) == {"explore_causal": False}
    with pytest.raises(SystemExit):
        p.parse_args(["--no-causal", "x"])


BAD = [
    (["--past", "40"], ["option --past", "past must be from 0 to 32 (got 40)"]),
    (["--past", "-1"], ["option --past", "from 0 to 32"]),
    (["--past", "x"], ["option --past", "expected a whole number, got 'x'"]),
    (["--past", "2.5"], ["option --past", "expected a whole number"]),
    (["--new", "0"], ["option --new", "new must be from 1 to 32 (got 0)"]),
    (["--new", "33"], ["option --new", "from 1 to 32"]),
    (["--pad", "9"], ["option --pad", "past + new = 5 (got 9)"]),
    (["--pad", "-2"], ["option --pad", "pad must be from 0"]),
    (["--pad-side", "up"], ["option --pad-side", "left or right"]),
    (["--temperature", "0"], ["option --temperature", "from 0.1 to 10 (got 0.0)"]),
    (["--temperature", "20"], ["option --temperature", "from 0.1 to 10"]),
    (["--temperature", "nan"], ["option --temperature", "finite"]),
    (["--temperature", "inf"], ["option --temperature", "finite"]),
    (["--temperature", "hot"], ["option --temperature", "expected a number, got 'hot'"]),
    (["--empty-row", "skip"], ["option --empty-row", "unknown empty-row policy 'skip'"]),
    (["--seed", "-1"], ["option --seed", "from 0 to 4294967295"]),
    (["--seed", "1e3"], ["option --seed", "expected a whole number"]),
    (["--lens", "bogus"], ["option --lens", "unknown lens 'bogus'"]),
    (["--lens", ""], ["option --lens", "unknown lens"]),
]


@pytest.mark.parametrize("argv, fragments", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_option_values(argv, fragments):
    args = parse(*argv)
    with pytest.raises(MaskattnError) as info:
        config_from_args(args)
        lenses_from_args(args)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message
    assert info.value.message("zh").startswith("选项 ")


def test_bad_scenario_on_the_command_line(tmp_path):
    with pytest.raises(MaskattnError) as info:
        config_from_args(parse("--scenario", str(tmp_path / "missing.toml")))
    assert "missing.toml: no such scenario file" in str(info.value)
    bad = tmp_path / "bad.toml"
    bad.write_text("past = 99\n")
    with pytest.raises(MaskattnError) as info:
        config_from_args(parse("--scenario", str(bad)))
    assert f"{bad}: key 'past': past must be from 0 to 32 (got 99)" == str(info.value)
    # the file must be valid on its own: an option does not mend it
    with pytest.raises(MaskattnError):
        config_from_args(parse("--scenario", str(bad), "--past", "3"))


def test_conflict_between_file_and_option_names_the_source(tmp_path):
    path = save_scenario(ExploreConfig(past=0, new=2, q=[[1, 0], [0, 1]]), tmp_path / "s.toml")
    with pytest.raises(MaskattnError) as info:
        config_from_args(parse("--scenario", str(path), "--new", "3"))
    assert f"{path}: key 'q': q must have 3 rows" in str(info.value)


def test_experiment_option():
    from maskattn_tui.cli.explore_options import experiments_from_args
    from maskattn_tui.explore import EXPERIMENTS

    args = parse("--experiment", "offset-bug,leak-probe")
    assert experiments_from_args(args) == ("leak-probe", "offset-bug")
    assert config_from_args(args) == ExploreConfig()  # starts explore mode on the defaults
    assert experiments_from_args(parse("--experiment", "all")) == EXPERIMENTS
    assert experiments_from_args(parse()) is None
    with pytest.raises(MaskattnError) as info:
        experiments_from_args(parse("--experiment", "leak"))
    assert str(info.value).startswith("option --experiment: unknown experiment 'leak'")
    assert "--experiment NAME" in parser().format_help()
