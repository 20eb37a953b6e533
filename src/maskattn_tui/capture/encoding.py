"""The one JSON encoder of a capture's calls files: strict JSON, ASCII,
one line a call. A part many calls share (the description of the mask
every layer of a decode step gets, a layer's config and flags) is made an
Encoded once (`encoded`) and spliced into each line that holds it, under
the keys SPLICED; everything else is encoded with its line."""

from __future__ import annotations

from maskattn_tui import strict_json

#: the top-level keys of a call whose value may be an Encoded
SPLICED = ("mask", "intent")


def _plain(value):
    """Numbers from torch (SymInt, 0-d tensors) as plain numbers."""
    try:
        return float(value) if not isinstance(value, bool) else bool(value)
    except (TypeError, ValueError):
        return repr(value)


line, encoded = strict_json.line_writer(default=_plain, spliced=SPLICED)
