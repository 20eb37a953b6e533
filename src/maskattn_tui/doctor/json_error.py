"""`doctor … --json` that fails: besides the one stderr line, a JSON
object on stdout, so that a program reading stdout always gets JSON:

    {"schema": "maskattn-doctor-error/1",
     "error": {"code": "doctor_missing", "message": "mask.npy: no such file", "exit": 2}}

`code` is the message's key (stable across languages and wordings);
"usage" for a bad command line. Only the standard library: this runs on
the error path of any command line, before anything else is imported."""

from __future__ import annotations

import sys

from maskattn_tui import strict_json

SCHEMA = "maskattn-doctor-error/1"


def wanted(arguments: list[str]) -> bool:
    """`doctor` is the sub-command and --json is among its arguments (read
    from the raw arguments: a usage error leaves no parsed namespace)."""
    words = [a for a in arguments if a != "--"]
    return "doctor" in words and "--json" in words[words.index("doctor") + 1:]


def write(code: str, message: str, exit_code: int = 2) -> None:
    """The error object on stdout (nothing if stdout is closed or gone)."""
    document = {"schema": SCHEMA, "error": {"code": code, "message": message, "exit": exit_code}}
    try:
        if sys.stdout is None:
            return
        sys.stdout.write(strict_json.dumps(document, indent=None) + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):  # a closed or broken stdout: the stderr line stands
        pass
