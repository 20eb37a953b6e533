"""No dead names in the pure packages: every top-level function, class,
constant and method defined in engine/, lesson/, explore/, cli/, model/ and
the top-level modules is used somewhere (the package, its tests, benchmarks
or scripts). A use is a name read, an attribute, a keyword, or the name as
a string (the lazy export tables and action names hold names as strings)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import maskattn_tui

ROOT = Path(maskattn_tui.__file__).parent
REPO = ROOT.parent.parent
CHECKED = ("engine", "lesson", "explore", "cli", "model")
#: Names the standard library or a framework calls, never the project.
HOOKS = ("__", "test", "action_", "on_", "watch_", "compose", "render", "validate_", "get_")


def _uses(paths) -> Counter:
    seen: Counter = Counter()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                seen[node.id] += 1
            elif isinstance(node, ast.Attribute):
                seen[node.attr] += 1
            elif isinstance(node, ast.keyword) and node.arg:
                seen[node.arg] += 1
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                seen[node.value] += 1
    return seen


def _definitions(path: Path):
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, node.lineno
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        yield item.name, item.lineno
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield target.id, node.lineno


def test_every_defined_name_is_used():
    everything = [*ROOT.rglob("*.py"), *(REPO / "tests").rglob("*.py"),
                  *(REPO / "benchmarks").rglob("*.py"), *(REPO / "scripts").rglob("*.py")]
    used = _uses(everything)
    checked = [p for p in ROOT.glob("*.py")] + [p for d in CHECKED for p in (ROOT / d).rglob("*.py")]
    dead = [f"{p.relative_to(ROOT)}:{line} {name}" for p in sorted(checked)
            for name, line in _definitions(p)
            if not name.startswith(HOOKS) and used[name] == 0 and used[name.removeprefix("_")] == 0]
    assert dead == []
