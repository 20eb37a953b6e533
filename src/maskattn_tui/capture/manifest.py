"""DIR/capture.json: the manifest of a capture (documented in
docs/json.md). Written when capture starts ("complete": false) and again
when it ends, with every process's calls joined in order and, per
distinct mask, the calls that used it. A capture whose manifest is not
complete (a killed run) is read from its calls-<pid>.jsonl files.
Reading needs neither torch nor numpy."""

from __future__ import annotations

import json
import os
import re

from maskattn_tui import strict_json
from maskattn_tui.errors import MaskattnError

SCHEMA = "maskattn-capture/1"
MANIFEST = "capture.json"


def write(folder: str, header: dict, complete: bool) -> dict:
    calls = read_calls(folder) if complete else []
    document = {"schema": SCHEMA, "complete": complete, **header, "calls": calls, "masks": masks_of(calls)}
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


def read_calls(folder: str) -> list[dict]:
    """Every process's calls, the first process's first; `call` numbers
    them all, `within` is turned into that numbering."""
    files = []
    for name in os.listdir(folder):
        if name.startswith("calls-") and name.endswith(".jsonl"):
            path = os.path.join(folder, name)
            files.append((_first_line_order(path), path))
    calls: list[dict] = []
    for _, path in sorted(files):
        numbers: dict[int, int] = {}
        with open(path, encoding="utf-8") as file:
            for line in file:
                try:
                    record = json.loads(line)
                except ValueError:  # the last line of a killed writer
                    continue
                if not isinstance(record, dict):
                    continue
                numbers[record.get("index", -1)] = len(calls)
                record["call"] = len(calls)
                if record.get("within") is not None:
                    record["within"] = numbers.get(record["within"])
                intent = record.get("intent")
                if isinstance(intent, dict) and intent.get("builder_call") is not None:
                    intent["builder_call"] = numbers.get(intent["builder_call"])
                calls.append(record)
    return calls


def _first_line_order(path: str) -> tuple:
    """Files in the order their processes started writing (ctime of the file)."""
    stat = os.stat(path)
    return (stat.st_ctime_ns, path)


def mask_hashes(call: dict) -> list[str]:
    mask = call.get("mask") or {}
    return [h for row in mask.get("hashes", []) for h in row]


def masks_of(calls: list[dict]) -> dict:
    """Each distinct mask's hash -> the calls that used it (in order)."""
    out: dict[str, list[int]] = {}
    for call in calls:
        for digest in dict.fromkeys(mask_hashes(call)):
            out.setdefault(digest, []).append(call["call"])
    return {digest: {"calls": used} for digest, used in out.items()}


def load(folder: str) -> dict:
    """The manifest of a capture folder; one line (MaskattnError) when it is not one."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.isdir(folder):
        raise MaskattnError("capture_not_folder", folder=folder)
    if not os.path.exists(path):
        if not any(n.startswith("calls-") for n in os.listdir(folder)):
            raise MaskattnError("capture_no_manifest", folder=folder)
        document = {"schema": SCHEMA, "complete": False}
    else:
        try:
            with open(path, encoding="utf-8") as file:
                document = json.load(file)
        except (OSError, ValueError) as exc:
            raise MaskattnError("capture_bad_manifest", folder=folder, reason=str(exc)[:120]) from None
        if not isinstance(document, dict) or document.get("schema") != SCHEMA:
            raise MaskattnError("capture_bad_manifest", folder=folder, reason=f"schema is not {SCHEMA}")
    if not document.get("complete"):
        document["calls"] = read_calls(folder)
        document["masks"] = masks_of(document["calls"])
    problem = _invalid(document)
    if problem:
        raise MaskattnError("capture_bad_manifest", folder=folder, reason=problem)
    return document


HASH = re.compile(r"[0-9a-f]{20}")  # a table's name: capture's own hashes only (they name files)
_ATTENTION = ("sdpa", "hf", "mha", "flex")


def _invalid(document: dict) -> str | None:
    """What makes a manifest unreadable (a file edited or cut by hand): the
    reason, or None. Hashes must be capture's own (they name files)."""
    calls = document.get("calls")
    if not isinstance(calls, list):
        return "calls is not a list"
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("call"), int) or \
                not isinstance(call.get("kind"), str):
            return f"call {i} has no number or kind"
        if call["kind"] in _ATTENTION and not all(isinstance(call.get(n), int) for n in ("q_len", "k_len")):
            return f"call {i} has no q_len / k_len"
        mask = call.get("mask")
        if mask is not None:
            rows = mask.get("hashes", []) if isinstance(mask, dict) else None
            if not isinstance(rows, list) or not all(
                    isinstance(r, list) and all(isinstance(h, str) and HASH.fullmatch(h) for h in r) for r in rows):
                return f"call {i}: its mask hashes are not capture's"
    return None


def mask_path(folder: str, digest: str) -> str:
    return os.path.join(folder, "masks", digest + ".npy")
