"""Tab completion of a file path in the open and save dialogs: the longest
common completion of what was typed among the folder's entries (a folder
gets its "/"), and the names that fit when there are several. Pure: it only
lists folders (never reads a file), and a folder that cannot be listed
completes nothing."""

from __future__ import annotations

import os

#: Names shown under the box at most (the rest are counted).
SHOWN = 8


def complete_path(text: str) -> tuple[str, list[str]]:
    """(the completed text, the names that fit if several). `~` is expanded
    only to look; what is typed stays as typed."""
    folder, stem = os.path.split(text)
    look = os.path.expanduser(folder) if folder else "."
    try:
        with os.scandir(look) as entries:
            names = sorted((e.name + ("/" if _is_dir(e) else "")) for e in entries if e.name.startswith(stem)
                           and (stem.startswith(".") or not e.name.startswith(".")))
    except OSError:
        return text, []
    if not names:
        return text, []
    common = os.path.commonprefix(names)
    completed = os.path.join(folder, common) if folder else common
    return (completed, [] if len(names) == 1 else names)


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def candidates_text(names: list[str]) -> str:
    shown = "  ".join(names[:SHOWN])
    return shown + (f"  … +{len(names) - SHOWN}" if len(names) > SHOWN else "")
