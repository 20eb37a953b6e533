"""The import-linter contracts of pyproject.toml hold: no module imports
from a layer above its own (lint-imports, run as CI runs it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_lint_imports_keeps_every_contract():
    exe = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_every_subpackage_is_in_a_layer():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    layers = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["contracts"][0]
    named = {name.strip() for layer in layers["layers"] for name in layer.split("|")}
    package = ROOT / "src" / "maskattn_tui"
    found = {f"maskattn_tui.{p.name}" for p in package.iterdir() if (p / "__init__.py").is_file()}
    found |= {f"maskattn_tui.{p.stem}" for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert found <= named, sorted(found - named)
