"""No dead names: every top-level function, class, constant and method
defined in the package (engine/, lesson/, explore/, doctor/, render/,
scale/, model/, cli/, tui/, capture/ and the top-level modules) is used
somewhere (the package, its tests, benchmarks or scripts). A use is a name
read, an attribute, a keyword, a name imported under another name, or the
name as a string (the lazy export tables and action names hold names as
strings)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import maskattn_tui

ROOT = Path(maskattn_tui.__file__).parent
REPO = ROOT.parent.parent
CHECKED = ("engine", "lesson", "explore", "doctor", "render", "scale", "model", "cli", "tui", "capture", "probe")
#: Names the standard library or a framework calls, never the project.
HOOKS = ("__", "test", "action_", "on_", "watch_", "compose", "render", "validate_", "get_")
#: Textual's own names the app overrides: Textual reads them.
TEXTUAL = ("check_action", "discover", "BUTTON_INNER")


def _handler(node) -> bool:
    """A method decorated with Textual's @on(...): Textual calls it."""
    return any(isinstance(d, ast.Call) and getattr(d.func, "id", None) == "on" for d in node.decorator_list)


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
            elif isinstance(node, ast.alias) and node.asname:  # `import x as y`: y is read, x is used
                seen[node.name.rsplit(".", 1)[-1]] += 1
    return seen


def _definitions(path: Path):
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, node.lineno
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _handler(item):
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
            if not name.startswith(HOOKS) and name not in TEXTUAL
            and used[name] == 0 and used[name.removeprefix("_")] == 0]
    assert dead == []
