"""The engine, the step machine, --help, print, json and check never import
Textual (and the engine and machine not even Rich)."""

import subprocess
import sys

import pytest

PURE = ["softmax", "matrices", "visibility", "attention", "step_machine", "scenario", "stepview",
        "jsonout", "checks", "i18n", "errors"]


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
