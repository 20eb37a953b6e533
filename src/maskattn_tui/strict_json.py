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


class Encoded:
    """A part of a line encoded once and written as it is wherever it
    recurs (the description of the mask every layer of a decode step
    gets, a layer's config): `value` the document, `text` its JSON."""

    __slots__ = ("_value", "_parts", "text")

    def __init__(self, value, text: str, parts: dict | None = None) -> None:
        self._value, self._parts, self.text = value, parts, text

    @property
    def value(self):
        """The document (with its parts' documents as its last keys)."""
        if not self._parts:
            return self._value
        return {**self._value, **{key: part.value for key, part in self._parts.items()}}


def line_writer(default=None, spliced: tuple = ()):
    """(dumps_line, encoded): `dumps(document, indent=None, ascii=True,
    default=default)` for many documents (capture's calls, one line each),
    with the encoder made once, not at every call as json.dumps makes it;
    `encoded(value, parts)` an Encoded of `value` (a dict) with the
    Encoded `parts` added as its last keys. A value of the top-level keys
    `spliced` may be an Encoded: its text goes in as it is (a JSON object's
    keys have no order)."""
    encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, default=default).encode

    def strict(document) -> str:
        try:
            return encode(document)
        except ValueError:
            where = not_finite_at(document, default)
            if where is None:
                raise
            from maskattn_tui.errors import MaskattnError

            raise MaskattnError("json_not_finite", where=where[0], value=where[1]) from None

    def joined(document: dict, parts: dict) -> str:
        text = strict(document)
        if not parts:
            return text
        tail = "".join(f", {encode(key)}: {part.text}" for key, part in parts.items())
        return "{" + tail[2:] + "}" if text == "{}" else text[:-1] + tail + "}"

    def dumps_line(document) -> str:
        parts = None
        for key in spliced:
            value = document.get(key)
            if type(value) is Encoded:
                if parts is None:
                    parts, document = {}, dict(document)
                parts[key] = document.pop(key)
        return strict(document) if parts is None else joined(document, parts)

    def encoded(value: dict, parts: dict | None = None) -> Encoded:
        return Encoded(value, joined(value, parts), parts) if parts else Encoded(value, strict(value))

    return dumps_line, encoded


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
