"""The settings file (cli/config_file.py): values, where each came from,
the command line winning, one-line refusals naming the file and the key,
and the app's keys remapped by binding id with App.set_keymap (the footer,
help and palette show the new keys; the old key no longer acts)."""

from __future__ import annotations

import json

import pytest

from helpers import run_main, searched
from maskattn_tui.cli.config_file import Settings, checked_keys, parse
from maskattn_tui.model.commands import COMMANDS


def _file(tmp_path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_show_names_each_value_and_where_it_came_from(tmp_path):
    home = tmp_path / "xdg"
    (home / "maskattn-tui").mkdir(parents=True)
    (home / "maskattn-tui" / "config.toml").write_text(
        'language = "zh"\ndwell = 3\nlenses = ["hf"]\ntheme = "nord"\n[keys]\nnext = "n"\n', encoding="utf-8")
    env = {"XDG_CONFIG_HOME": str(home), "LANG": "C.UTF-8"}
    ran = run_main("config", "--show", env=env, drop=("LC_ALL", "LC_MESSAGES"))
    assert ran.returncode == 0, ran.stderr
    rows = {line.split()[0]: line for line in ran.stdout.splitlines()[1:]}
    assert ran.stdout.startswith("生效的设置")  # the file's language, not LANG's
    assert "zh" in rows["language"] and "设置文件" in rows["language"]
    assert " 3 " in rows["dwell"] + " " and "nord" in rows["theme"]
    assert rows["keys.next"].split()[1] == "n" and "设置文件" in rows["keys.next"]
    assert rows["keys.prev"].split()[1] == "left" and "默认" in rows["keys.prev"]
    where = run_main("config", env=env).stdout  # without --show: which file, and how to see it
    assert where.startswith(f"设置文件：{home / 'maskattn-tui' / 'config.toml'}（已读取）") and "--show" in where
    # the command line wins over the file
    ran = run_main("config", "--show", "--lang", "en", env=env)
    assert "en  (command line)" in ran.stdout and ran.stdout.startswith("Settings in force")


def test_the_file_fills_in_what_the_command_line_did_not_give(tmp_path):
    path = _file(tmp_path, 'language = "zh"\nlenses = ["hf"]\n')
    doc = json.loads(run_main("--config-file", path, "json", "--step", "2").stdout)
    assert doc["steps"][0]["lang"] == "zh" and [lens["lens"] for lens in doc["steps"][0]["api_lens"]] == ["hf"]
    doc = json.loads(run_main("--config-file", path, "json", "--step", "2", "--lang", "en",
                              "--lens", "flex").stdout)
    assert doc["steps"][0]["lang"] == "en" and [lens["lens"] for lens in doc["steps"][0]["api_lens"]] == ["flex"]
    # print: the file's lens section after the step, in the file's language
    out = run_main("--config-file", path, "print", "--step", "2").stdout
    assert "API 视角" in out and "Hugging Face" in out


@pytest.mark.parametrize("text,command,words", [
    ('[keys]\nnext = "e"\n', "config", ["keys.next", "'e'", "explore"]),
    ('[keys]\nnext = "ctrl+p"\n', "config", ["keys.next", "ctrl+p"]),
    ('[keys]\nnope = "x"\n', "print", ["keys.nope", "binding id"]),
    ('theme = "nope"\n', "config", ["theme", "'nope'", "textual-dark"]),
    ('dwell = "slow"\n', "print", ["'dwell'", "seconds"]),
    ('dwell = 99\n', "json", ["'dwell'", "0.25-10"]),
    ('colour = 1\n', "json", ["'colour'", "language, theme"]),
    ('dwell = [\n', "json", ["not valid TOML"]),
    ('lenses = ["hf", "nope"]\n', "json", ["'lenses'", "sdpa-bool"]),
])
def test_a_bad_file_is_one_line_naming_the_file_and_the_key(tmp_path, text, command, words):
    path = _file(tmp_path, text)
    ran = run_main("--config-file", path, command)
    assert ran.returncode == 2 and ran.stdout == ""
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and path in lines[0], ran.stderr
    assert all(word in lines[0] for word in words), lines[0]
    zh = run_main("--config-file", path, command, "--lang", "zh") if command != "print" else \
        run_main("--config-file", path, "--lang", "zh", command)
    assert zh.returncode == 2 and "错误" in zh.stderr and path in zh.stderr


def test_a_named_file_must_exist_and_be_a_regular_file(tmp_path):
    ran = run_main("--config-file", str(tmp_path / "none.toml"), "print")
    assert ran.returncode == 2 and "none.toml: no such settings file" in ran.stderr
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    ran = run_main("--config-file", str(fifo), "json")  # never blocks on a FIFO
    assert ran.returncode == 2 and "not a regular file" in ran.stderr


def test_every_binding_id_of_the_table_can_be_remapped_and_none_clash_by_default():
    assert checked_keys(Settings("f.toml", {}, {})) == COMMANDS  # the table as it is has no clash
    table = checked_keys(parse('[keys]\nnext = "n"\nhelp = "?"\n', "f.toml"))
    by_id = {c.id: c for c in table}
    assert by_id["next"].keys == "n" and by_id["help"].keys == "question_mark" and by_id["help"].display == "?"
    # n is mask mode's "next call", but next is a figure key: no clash across modes
    assert by_id["capture_call"].keys == "n"


async def test_remapped_keys_act_and_are_shown_in_footer_help_and_palette(tmp_path):
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui.help import HelpScreen
    from maskattn_tui.tui.widgets.keybar import KeyBar

    table = checked_keys(parse('[keys]\nnext = "n"\nprev = "p"\nhelp = "f1"\n', "f.toml"))
    from maskattn_tui.tui.bindings import wear

    app = make_app()
    wear(app, theme="nord", commands=table)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "nord"
        await pilot.press("n")
        await pilot.pause()
        assert app.model.player.step == 2
        await pilot.press("right")  # the old key does nothing now
        await pilot.pause()
        assert app.model.player.step == 2
        await pilot.press("p")
        await pilot.pause()
        assert app.model.player.step == 1
        footer = str(app.query_one(KeyBar).render())
        assert " p/n " in footer and "←/→" not in footer and " f1 " in footer
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        from rich.console import Console

        console = Console(width=100, record=True, file=__import__("io").StringIO())
        console.print(app.screen.query_one("#keys-table").content)
        rows = [line.split() for line in console.export_text().splitlines()]
        assert ["n", "next", "step"] in [row[:3] for row in rows]
        assert ["→", "next", "step"] not in [row[:3] for row in rows]  # (→ stays mask mode's next key)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Enlarge")
        await searched(pilot)
        from textual.command import CommandList

        shown = str(app.screen.query_one(CommandList).get_option_at_index(0).prompt)
        assert "Enlarge the figure" in shown and "key: z" in shown


@pytest.mark.parametrize("argv,dwell,ascii,lang", [
    ([], 3.0, True, "zh"),                                        # the app: the file's values
    (["--dwell", "5", "--lang", "en"], 5.0, True, "en"),          # the command line wins
    (["--ascii"], 3.0, True, "zh"),
])
def test_the_app_takes_the_files_values_unless_the_command_line_gives_them(argv, dwell, ascii, lang):
    from maskattn_tui.cli import config_file
    from maskattn_tui.cli.parser import build_parser, settle_options

    settings = parse('language = "zh"\ndwell = 3\nascii = true\n', "f.toml")
    parser = build_parser()
    args = parser.parse_args(argv)
    origins = config_file.apply(args, settings)
    settle_options(args, parser)
    assert (args.dwell, args.ascii, args.lang) == (dwell, ascii, lang)
    assert origins["dwell"] == ("option" if "--dwell" in argv else "file")
    # json has no --ascii nor --dwell: only the language reaches it
    args = parser.parse_args(["json"])
    config_file.apply(args, settings)
    settle_options(args, parser)
    assert (args.lang, args.dwell, args.ascii) == ("zh", 2.0, False)


async def test_the_explore_panel_names_the_remapped_keys():
    from textual.widgets import Checkbox

    from maskattn_tui.explore import ExploreConfig
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui.bindings import wear
    from maskattn_tui.tui.widgets.explore_panel import _id

    app = make_app(explore=ExploreConfig())
    wear(app, commands=checked_keys(parse('[keys]\nleak_probe = "x"\nlens = "ctrl+l"\n', "f.toml")))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert str(app.query_one(f"#{_id('leak-probe')}", Checkbox).label).startswith("x ")
        assert str(app.query_one("#x-lens", Checkbox).label).startswith("ctrl+l ")
        await pilot.press("x")
        await pilot.pause()
        assert "leak-probe" in app.model.session.experiments
