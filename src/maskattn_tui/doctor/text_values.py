"""The values of a pasted mask: its tokens (runs of bytes between
whitespace, commas and brackets) turned into one numpy array without a
Python object per token and without evaluating anything.

Tokens are found with numpy (`spans`: start and end of each, int32) and
read a block of TOKENS_PER_BLOCK at a time as a fixed-width byte matrix.
A mask holds few distinct tokens ("True", "False", "0.", "-inf"...): each
block's are found by a hash of their bytes (checked for collisions), each
distinct one is checked once in Python (True / False / true / false, an
integer within int64, a float: inf, nan, Infinity too), and the block is a
lookup. A block of many distinct tokens (scores) is checked byte-wise and
converted by numpy. Anything else is refused, naming the first bad token."""

from __future__ import annotations

import re

import numpy as np

from maskattn_tui.errors import MaskattnError

TOKENS_PER_BLOCK = 1 << 18
#: Bytes per step when finding token edges (bounded temporaries).
EDGE_STEP = 1 << 23
#: Distinct tokens looked up rather than converted.
LOOKUP_MOST = 64
_NUMBER = re.compile(rb"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|Infinity|nan|NaN)")
_INT = re.compile(rb"[-+]?\d+")
_BOOLS = {b"True": True, b"true": True, b"False": False, b"false": False}
INT64 = (-(1 << 63), (1 << 63) - 1)
#: JSON writes numbers so, and true / false (for naming the format only).
_JSON_NUMBER = re.compile(rb"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def shown(token: bytes, most: int = 20) -> str:
    text = token.decode("utf-8", "replace")
    return text if len(text) <= most else text[: most - 1] + "\u2026"


class Tokens:
    """What each distinct token is: "bool", "int" or "float", and its value."""

    def __init__(self, name: str, refusal: str = "doctor_text_token") -> None:
        self.name, self.refusal = name, refusal
        self.known: dict[bytes, tuple[str, object]] = {}
        self.kinds: set[str] = set()
        self.json = True

    def kind(self, token: bytes) -> tuple[str, object]:
        seen = self.known.get(token)
        if seen is not None:
            return seen
        if token in _BOOLS:
            seen = ("bool", _BOOLS[token])
            self.json &= token in (b"true", b"false")
        elif _INT.fullmatch(token):
            digits = len(token.lstrip(b"+-"))
            value = int(token) if digits <= 25 else None  # never a 4,300-digit int()
            if value is None or not INT64[0] <= value <= INT64[1]:
                raise MaskattnError("doctor_text_big_int", file=self.name, token=shown(token))
            seen = ("int", value)
            self.json &= bool(_JSON_NUMBER.fullmatch(token))
        elif _NUMBER.fullmatch(token):
            seen = ("float", float(token))
            self.json &= bool(_JSON_NUMBER.fullmatch(token))
        else:
            raise MaskattnError(self.refusal, file=self.name, token=shown(token))
        self.known[token] = seen
        self.kinds.add(seen[0])
        if "bool" in self.kinds and len(self.kinds) > 1:
            raise MaskattnError("doctor_text_mixed", file=self.name)
        return seen


#: Bytes a token of the many-distinct path may hold.
_NUMERIC_BYTES = np.zeros(256, dtype=bool)
_NUMERIC_BYTES[list(b"0123456789+-.eEinfatyINFATY")] = True
_FLOAT_MARKS = np.zeros(256, dtype=bool)
_FLOAT_MARKS[list(b".eEinfatyINFATY")] = True
#: Longest token read as a value (longer ones are checked one by one).
WIDEST = 40


def spans(token_byte: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the runs of True in `token_byte`, as int32."""
    n = token_byte.size
    starts, ends = [np.zeros(0, np.int32)], [np.zeros(0, np.int32)]
    for a in range(0, n, EDGE_STEP):
        b = min(n, a + EDGE_STEP)
        here = token_byte[a:b]
        first = here.copy()
        first[1:] &= ~here[:-1]
        first[0] &= not (a and token_byte[a - 1])
        last = here.copy()
        last[:-1] &= ~here[1:]
        last[-1] &= not (b < n and token_byte[b])
        starts.append(np.flatnonzero(first).astype(np.int32) + np.int32(a))
        ends.append(np.flatnonzero(last).astype(np.int32) + np.int32(a + 1))
    return np.concatenate(starts), np.concatenate(ends)


def _matrix(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, width: int) -> np.ndarray:
    """The tokens as rows of `width` bytes, zero-padded."""
    lengths = (ends - starts)[:, None]
    columns = np.arange(width, dtype=np.int32)[None, :]
    index = np.minimum(starts[:, None] + columns, buf.size - 1)
    return np.where(columns < lengths, buf[index], 0).astype(np.uint8)


def _first_bad(buf, starts, ends, table: Tokens) -> None:
    for a, b in zip(starts.tolist(), ends.tolist()):
        table.kind(bytes(buf[a:b]))


def _block(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, table: Tokens) -> np.ndarray:
    width = int((ends - starts).max())
    if width > WIDEST:
        _first_bad(buf, starts, ends, table)  # a token that long is no value: this names it
    mat = _matrix(buf, starts, ends, width)
    digest = np.zeros(mat.shape[0], dtype=np.uint64)
    for column in mat.T:  # FNV-style: overflow wraps, as meant
        digest = digest * np.uint64(1099511628211) + column
    keys, first, inverse = np.unique(digest, return_index=True, return_inverse=True)
    if keys.size > LOOKUP_MOST:
        return _numbers(buf, starts, ends, mat, table)
    if not (mat == mat[first][inverse]).all():  # two tokens of one digest: read them one by one
        first = np.arange(mat.shape[0])
        inverse = first
    try:
        found = [table.kind(bytes(mat[i, :ends[i] - starts[i]])) for i in first.tolist()]
    except MaskattnError:
        _first_bad(buf, starts, ends, table)
        raise
    kinds = {k for k, _ in found}
    dtype = np.bool_ if kinds == {"bool"} else np.int64 if kinds == {"int"} else np.float64
    return np.array([v for _, v in found], dtype=dtype)[inverse]


def _numbers(buf, starts, ends, mat: np.ndarray, table: Tokens) -> np.ndarray:
    """Many distinct tokens: numbers, converted by numpy."""
    if not _NUMERIC_BYTES[mat[mat != 0]].all():
        _first_bad(buf, starts, ends, table)
    strings = mat.view(f"S{mat.shape[1]}").ravel()
    is_float = bool(_FLOAT_MARKS[mat].any())
    try:
        values = strings.astype(np.float64 if is_float else np.int64)
    except (ValueError, OverflowError):
        _first_bad(buf, starts, ends, table)
        raise MaskattnError("doctor_text_mixed", file=table.name) from None
    table.kinds.add("float" if is_float else "int")
    if "bool" in table.kinds:
        raise MaskattnError("doctor_text_mixed", file=table.name)
    table.json = False if is_float else table.json
    return values


def parse_values(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, name: str,
                 refusal: str = "doctor_text_token") -> tuple[np.ndarray, Tokens]:
    """The tokens at `starts`/`ends` of `buf` as one array: bool, int64 or
    float64."""
    table = Tokens(name, refusal)
    parts: list[np.ndarray] = []
    for a in range(0, starts.size, TOKENS_PER_BLOCK):
        b = a + TOKENS_PER_BLOCK
        parts.append(_compact(_block(buf, starts[a:b], ends[a:b], table)))
    kinds = table.kinds
    dtype = np.bool_ if kinds == {"bool"} else np.int64 if kinds <= {"int"} else np.float64
    out = np.empty(starts.size, dtype=dtype)
    at = 0
    for part in parts:
        out[at:at + part.size] = part
        at += part.size
    return out, table


def _compact(values: np.ndarray) -> np.ndarray:
    """A block of small integers kept as int8 until the result is assembled."""
    if values.dtype == np.int64 and values.size and values.min() >= -128 and values.max() <= 127:
        return values.astype(np.int8)
    return values
