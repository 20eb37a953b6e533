"""What a capture's call record must hold to be read (folder.py checks
each one): the fields the readers use (findings, summary, the doctor, the
picker), with the types capture writes. A record from a folder someone
sent may hold anything; one that does not fit is left out with a note
naming the field, never read into an AttributeError or a KeyError later.
Also `printable_json`: the JSON text with its control characters escaped
before it is parsed."""

from __future__ import annotations

import re
from typing import TypedDict

from maskattn_tui.printable import escaped

SCHEMA = "maskattn-capture/1"
#: The kinds of call that are one attention each (the others: hf-mask, forward).
ATTENTION = ("sdpa", "hf", "mha", "flex")
#: Where a call's table came from (capture.source.* in the strings).
SOURCES = ("attn_mask", "is_causal", "none", "merged", "mask_mod")

_HASH = re.compile(r"[0-9a-f]{20}")


def _int(v) -> bool:
    return type(v) is int


def _count(v) -> bool:
    return type(v) is int and v >= 0


def _positive(v) -> bool:
    return type(v) is int and v > 0


def _number(v) -> bool:
    return type(v) in (int, float)


def _str(v) -> bool:
    return isinstance(v, str)


def _bool(v) -> bool:
    return isinstance(v, bool)


def _pair(test):
    return lambda v: isinstance(v, list) and len(v) == 2 and all(test(x) for x in v)


def _hashes(v) -> bool:
    return isinstance(v, list) and all(
        isinstance(row, list) and all(isinstance(h, str) and _HASH.fullmatch(h) for h in row) for row in v)


def _documents(v) -> bool:
    return isinstance(v, list) and all(isinstance(row, list) and all(_count(n) for n in row) for row in v)


#: field -> its test (None is allowed for every optional field)
CALL = {"call": _count, "index": _int, "pid": _int, "within": _int, "forward": _int, "generate_step": _int,
        "q_len": _count, "k_len": _count, "batch": _count, "heads": _count, "packed_gqa": _int,
        "sliding_window": _int, "kv_offset": _int, "is_causal": _bool,
        "site": _str, "frame": _str, "user_frame": _str, "layer_type": _str, "implementation": _str,
        "error": _str, "mask": lambda v: isinstance(v, dict), "block_mask": lambda v: isinstance(v, dict),
        "documents": _documents, "intent": lambda v: isinstance(v, dict)}  # (`weights` is real_weights.py's to judge: a bad one, no real bars)


class MaskRecord(TypedDict, total=False):
    """A call's `mask` as capture writes it (MASK checks each field)."""

    # "from" is a keyword: the functional form would be needed to name it; readers use mask["from"]
    polarity: str
    batch: int
    heads: int
    hashes: list[list[str]]
    min: float
    neg_inf: bool
    dtype: str


class CallRecord(TypedDict, total=False):
    """One call of capture.json once checked_call passed it: the fields of
    CALL (each optional but q_len / k_len of an attention call) and kind."""

    kind: str
    call: int
    index: int
    pid: int
    within: int
    forward: int
    generate_step: int
    q_len: int
    k_len: int
    batch: int
    heads: int
    packed_gqa: int
    sliding_window: int
    kv_offset: int
    is_causal: bool
    site: str
    frame: str
    user_frame: str
    layer_type: str
    implementation: str
    error: str
    mask: MaskRecord
    block_mask: dict
    documents: list[list[int]]
    intent: dict


MASK = {"from": lambda v: v in SOURCES, "polarity": _str, "batch": _positive, "heads": _positive,
        "hashes": _hashes, "min": _number, "neg_inf": _bool, "dtype": _str}
#: a flex call's BlockMask: the fields the findings compute with (required)
BLOCK = {"seq_lengths": _pair(_count), "block_size": _pair(_positive), "q_blocks": _positive}
BLOCK_OPTIONAL = {"kv_index_blocks": _count, "lists_lost": _count, "lists_gained": _count}


def _bad(record: dict, fields: dict, prefix: str = "", required: tuple = ()) -> tuple | None:
    for name, test in fields.items():
        value = record.get(name)
        if value is None and name not in required:
            continue
        if value is None:
            return "field_missing", {"field": prefix + name}
        if not test(value):
            return "field_value", {"field": prefix + name, "value": shown_value(value)}
    return None


def shown_value(value) -> str:
    """A JSON value as a note quotes it: short, escaped."""
    from maskattn_tui import strict_json

    try:
        text = strict_json.dumps(value, indent=None)
    except (ValueError, RecursionError):
        text = type(value).__name__
    return escaped(text if len(text) <= 40 else text[:39] + "\u2026")


def checked_call(record: dict, numbered: bool = False) -> tuple[str, dict] | None:
    """None when `record` can be read, else (reason, params) for the note.
    `numbered`: a manifest's call, which carries its own `call` number."""
    if not isinstance(record.get("kind"), str):
        return ("field_missing", {"field": "kind"}) if record.get("kind") is None else \
            ("field_value", {"field": "kind", "value": shown_value(record["kind"])})
    attention = record["kind"] in ATTENTION
    if attention and record.get("q_len") is None and isinstance(record.get("error"), str):
        return "not_recorded", {"error": escaped(record["error"][:120])}
    required = (("q_len", "k_len") if attention else ()) + (("call",) if numbered else ())
    problem = _bad(record, CALL, required=required)
    if problem is None and record.get("mask") is not None:
        problem = _bad(record["mask"], MASK, "mask.")
    block = record.get("block_mask")
    if problem is None and block and record["kind"] == "flex":
        problem = _bad(block, BLOCK, "block_mask.", tuple(BLOCK)) or _bad(block, BLOCK_OPTIONAL, "block_mask.")
    return problem


#: A control character as JSON text writes it: \u001b, \u0085, \u202e, \n, after a
#: run of backslashes (an escape when the run is odd: "\\n" is a backslash and an n).
#: The literal backslash first lets the scan skip to each one.
_JSON_CONTROL = re.compile(r'(\\+)(u00(?:[01][0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])|u20(?:2[a-eA-E]|6[6-9])|[nrtbf])')
#: ... and raw in the text (JSON allows DEL, C1 and the bidi overrides unescaped).
_RAW = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_LETTERS = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}


def _as_json(shown: str) -> str:
    return shown.replace("\\", "\\\\")


def _one(match: re.Match[str]) -> str:
    run, code = match[1], match[2]
    if len(run) % 2 == 0:  # backslashes escaping each other, then plain letters
        return match[0]
    char = _LETTERS[code] if len(code) == 1 else chr(int(code[1:], 16))
    return run[:-1] + _as_json(escaped(char))


def printable_json(text: str) -> str:
    """JSON text whose strings, once parsed, hold every control character
    as an escape (\x1b, \n, \u202e): the one pass over the text, C-speed,
    that keeps a manifest's command or site from driving the terminal
    wherever it is shown (the report, --json, the app's title)."""
    if "\\" not in text and not _RAW.search(text):
        return text
    return _RAW.sub(lambda m: _as_json(escaped(m[0])), _JSON_CONTROL.sub(_one, text))
