"""The one JSON writer: strict JSON only. Python's json writes NaN and
Infinity as bare tokens that most readers reject; here such a number is
refused with a MaskattnError naming where it sits (one line, exit 2 on the
command line) instead of being written. Only the standard library at
import time: capture runs it inside a user's process, and the doctor's
error path runs it before anything else is imported."""

from __future__ import annotations

import json
import math


def dumps(document, *, indent: int | None = 2, ascii: bool = False, default=None) -> str:
    """`document` as strict JSON text. `ascii`: every character outside ASCII
    as a JSON escape (for a stream that cannot encode it); `default` as for
    json.dumps (a callable turning unknown objects into plain ones)."""
    try:
        return json.dumps(document, ensure_ascii=ascii, indent=indent, allow_nan=False, default=default)
    except ValueError:
        where = not_finite_at(document, default)
        if where is None:  # not a number's fault (e.g. a circular reference)
            raise
        from maskattn_tui.errors import MaskattnError

        raise MaskattnError("json_not_finite", where=where[0], value=where[1]) from None


def line_writer(default=None):
    """`dumps(document, indent=None, ascii=True, default=default)` for many
    documents (capture's calls, one line each): the encoder is made once,
    not at every call as json.dumps makes it."""
    encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, default=default).encode

    def dumps_line(document) -> str:
        try:
            return encode(document)
        except ValueError:
            where = not_finite_at(document, default)
            if where is None:
                raise
            from maskattn_tui.errors import MaskattnError

            raise MaskattnError("json_not_finite", where=where[0], value=where[1]) from None
    return dumps_line


def dump(document, file, *, indent: int | None = 2, ascii: bool = False, default=None) -> None:
    """`dumps` into an open text file (nothing written when refused)."""
    file.write(dumps(document, indent=indent, ascii=ascii, default=default))


def not_finite_at(value, default=None, path: str = "$"):
    """(path, repr) of the first NaN or infinity in `value` (paths like
    $.steps[0].weights[1][2]), or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, repr(value))
    if isinstance(value, dict):
        for key, item in value.items():
            found = not_finite_at(item, default, f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = not_finite_at(item, default, f"{path}[{i}]")
            if found:
                return found
        return None
    if default is not None and not isinstance(value, (str, int, bool, type(None))):
        try:
            return not_finite_at(default(value), None, path)
        except (TypeError, ValueError):
            return None
    return None
