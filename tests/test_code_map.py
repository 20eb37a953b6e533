"""README.md's code map ("Where things are") cannot go stale: every folder
of src/maskattn_tui is named on a line of its own, every module is named
(as `name.py`) in its folder's entry (that line and the deeper-indented
lines under it; a subfolder's modules in its parent's entry), and every
module the map names exists. The package's own modules are named on the
`src/maskattn_tui/` line."""

from __future__ import annotations

import re
from pathlib import Path

import maskattn_tui

ROOT = Path(maskattn_tui.__file__).parent
README = ROOT.parent.parent / "README.md"
ENTRY = re.compile(r"^  ([a-z_/]+?)/(?=\s|\*|$)")
MODULE = re.compile(r"(?<![\w*])([a-z_][a-z0-9_]*)\.py\b")


def code_map() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Where things are", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    return [line for line in block.splitlines()[1:] if line.strip()]


def entries() -> dict[str, str]:
    """folder ("" for the package itself) -> the text of its entry."""
    lines = code_map()
    assert lines[0].startswith("src/maskattn_tui/"), lines[0]
    found: dict[str, list[str]] = {"": [lines[0][len("src/maskattn_tui/"):]]}
    current = ""
    for line in lines[1:]:
        head = ENTRY.match(line)
        if head:
            current = head.group(1)
            assert current not in found, f"{current}/ has two lines in the code map"
            found[current] = [line[head.end():]]
        else:
            assert line.startswith("   "), f"not under a folder: {line!r}"
            found[current].append(line)
    return {folder: " ".join(text) for folder, text in found.items()}


def packages() -> list[str]:
    return sorted(p.parent.relative_to(ROOT).as_posix() for p in ROOT.rglob("__init__.py")
                  if p.parent != ROOT)


def modules_by_entry() -> dict[str, set[str]]:
    """folder of the map -> the module files under it (a subfolder's too)."""
    out: dict[str, set[str]] = {"": {p.name for p in ROOT.glob("*.py") if p.name != "__init__.py"}}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if len(rel.parts) > 1 and path.name != "__init__.py" and "__pycache__" not in rel.parts:
            out.setdefault(rel.parts[0], set()).add(path.name)
    return out


def test_every_folder_has_one_line():
    mapped = entries()
    top = sorted({p.split("/")[0] for p in packages()})
    assert [f for f in top if f not in mapped] == []
    nested = [p for p in packages() if "/" in p]
    for folder in nested:  # a subpackage is named in its parent's entry
        parent, name = folder.split("/", 1)
        assert f"{name}/" in mapped[parent], f"{folder}/ is not in {parent}/'s entry"
    stale = [f for f in mapped if f and f != "data/strings" and f not in top]
    assert stale == []


def test_every_module_is_named_in_its_folders_entry():
    mapped = entries()
    missing = []
    for folder, files in sorted(modules_by_entry().items()):
        named = set(MODULE.findall(mapped.get(folder, "")))
        missing += [f"{folder or '.'}/{name}" for name in sorted(files) if name[:-3] not in named]
    assert missing == []


def test_every_named_module_exists():
    real = modules_by_entry()
    stale = []
    for folder, text in entries().items():
        if folder == "data/strings":
            continue
        stale += [f"{folder}/{name}.py" for name in MODULE.findall(text) if f"{name}.py" not in real.get(folder, ())]
    assert stale == []


def test_no_pointer_outside_the_clone():
    """The code, its tests and docs point at files a clone has (docs/), not
    at reference notes kept beside the working tree (../shared/*.md)."""
    repo = ROOT.parent.parent
    files = [*ROOT.rglob("*.py"), *(repo / "tests").glob("*.py"), *(repo / "docs").glob("*.md"), README]
    pointers = [str(p.relative_to(repo)) for p in files if p != Path(__file__)
                and re.search(r"\.\./shared/|MASK-PATTERNS|API-CONVENTIONS|CAPTURE-NOTES|\bF12\.md\b",
                             p.read_text(encoding="utf-8"))]
    assert pointers == []
