"""The engine, the step machine, --help, print, json and check never import
Textual (and the engine and machine not even Rich)."""

import subprocess
import sys

import pytest

PURE = ["engine.softmax", "engine.matrices", "engine.visibility", "engine.attention", "model.step_machine",
        "lesson.f12", "lesson.stepview", "cli.jsonout", "lesson.checks", "i18n", "errors"]


def loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True,
    ).stdout.split("\n")[-2]
    return {name.split(".")[0] for name in out.split()}


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_import_neither_textual_nor_rich(module):
    mods = loaded_after(f"import maskattn_tui.{module}")
    assert "textual" not in mods and "rich" not in mods


@pytest.mark.parametrize("argv", [["--help"], ["print", "--step", "2"], ["json"], ["check"], ["--version"]],
                         ids=["help", "print", "json", "check", "version"])
def test_cli_paths_do_not_import_textual(argv):
    code = (
        "import sys, io, contextlib\nfrom maskattn_tui.cli import main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass\n"
    )
    assert "textual" not in loaded_after(code)


def modules_after_main(argv: list[str]) -> set[str]:
    """Every module (full dotted name) loaded after running the CLI."""
    code = (
        "import sys, io, contextlib\nfrom maskattn_tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({argv!r})\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


#: What only the explore options, the API lens and the experiments need.
EXPLORE_ONLY = {"maskattn_tui.explore.config", "maskattn_tui.explore.api_lens", "maskattn_tui.explore.experiments",
                "maskattn_tui.explore.view", "maskattn_tui.explore.scenario_file", "tomllib", "tomli",
                "maskattn_tui.render.lens", "maskattn_tui.render.experiments"}


@pytest.mark.parametrize("argv", [["print", "--all"], ["print", "--step", "4", "--ascii"], ["json"], ["check"]],
                         ids=["print-all", "print-step", "json", "check"])
def test_f12_paths_do_not_load_the_explorer(argv):
    # `print` is timed against `import rich`; every module it does not need counts.
    assert not modules_after_main(argv) & (EXPLORE_ONLY | {"maskattn_tui.model.step_machine"})


def test_the_lens_and_experiments_load_when_asked_for():
    mods = modules_after_main(["print", "--lens", "hf", "--experiment", "offset-bug"])  # (--step with an experiment is refused)
    assert {"maskattn_tui.render.lens", "maskattn_tui.render.experiments",
            "maskattn_tui.explore.experiments"} <= mods
    assert "tomllib" not in mods
