"""DIR/capture.json: the manifest of a capture (documented in
docs/json.md). Written when capture starts ("complete": false) and again
when it ends, with every process's calls joined in order and, per
distinct mask, the calls that used it. A capture whose manifest is not
complete (a killed run) is read from its calls-<pid>.jsonl files. Reading
a folder (and joining the calls files here) is folder.py's: a folder is
untrusted data."""

from __future__ import annotations

import os

from maskattn_tui import strict_json
from maskattn_tui.capture.folder import MANIFEST, masks_of, read_calls
from maskattn_tui.capture.records import SCHEMA


def write(folder: str, header: dict, complete: bool) -> dict:
    calls = read_calls(folder, check=False) if complete else []  # as written; checked when read
    kinds: dict[str, int] = {}
    for call in calls:  # why the numbers of the attention calls skip: every record takes one
        kinds[str(call.get("kind"))] = kinds.get(str(call.get("kind")), 0) + 1
    document = {"schema": SCHEMA, "complete": complete, **header, "kinds": kinds, "calls": calls,
                "masks": masks_of(calls)}
    path = os.path.join(folder, MANIFEST)
    partial = f"{path}.{os.getpid()}.part"
    with open(partial, "w", encoding="utf-8") as file:
        strict_json.dump(document, file, indent=1, ascii=True)
        file.write("\n")
    os.replace(partial, path)
    return document


def clear(folder: str) -> None:
    """Remove a previous capture's calls files and manifest (only files
    capture itself writes; its masks stay, as new calls may share them)."""
    for name in os.listdir(folder):
        if name == MANIFEST or name.startswith("calls-") and name.endswith(".jsonl"):
            os.remove(os.path.join(folder, name))
