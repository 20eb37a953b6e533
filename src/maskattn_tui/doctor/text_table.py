"""Masks pasted as text, parsed without evaluating anything:

    tensor([[ True, False], [ True,  True]])          printed torch tensor
    tensor([[ 0.0000e+00, -3.4028e+38], ...], dtype=torch.bfloat16, device='cuda:0')
    [[ True False] [ True  True]]   [[  0. -inf] ...]  printed numpy array
    array([[0., -inf], ...], dtype=float32)            numpy repr
    [[1, 0], [1, 1]]                                   JSON (or a Python list)
    1 0 0 / 1,1,0                                      0/1 rows, one per line
    1000 / 1100 / 1110                                 compact 0/1 rows (4 keys each)

The structure is read with numpy over the bytes, never a Python loop per
value or per bracket: the brackets' depths (a running sum), the tokens in
each innermost group and the children of each group (searchsorted over
the token starts and the brackets)
A mask has at most 4 dimensions, so deeper nesting
is refused as soon as the depths are known (no quadratic work, no
recursion). Values go through text_values. A leading UTF-8 BOM is skipped.
An elided printout (`...`) is refused: it is not the whole mask."""

from __future__ import annotations

import re

import numpy as np

from maskattn_tui.doctor.text_values import parse_values, shown, spans
from maskattn_tui.errors import MaskattnError

MAX_DEPTH = 4
BOM = b"\xef\xbb\xbf"
_SUFFIX = re.compile(rb"(\w+)\s*=\s*([^,)]+)")
_SPACES = b" \t\n\r\f\v"
_TOKEN_BYTE = np.ones(256, dtype=bool)
_TOKEN_BYTE[list(b",[] \t\n\r\f\v")] = False
OPEN, CLOSE, NEWLINE = ord("["), ord("]"), ord("\n")


def _tokens(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return spans(_TOKEN_BYTE[buf])


def _per_segment(starts: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """How many tokens start between each bound and the next (the last: to the end)."""
    at = np.searchsorted(starts, bounds.astype(starts.dtype))  # one dtype: no copy of `starts`
    return np.diff(np.append(at, starts.size))


def _lengths(groups: np.ndarray) -> str:
    seen = np.unique(groups)
    return ", ".join(map(str, seen[:5].tolist())) + (", ..." if seen.size > 5 else "")


def _shape(body: bytes, name: str) -> tuple[int, ...]:
    """The shape of a bracketed table `body` ("[" ... "]")."""
    buf = np.frombuffer(body, dtype=np.uint8)
    pos = np.flatnonzero((buf == OPEN) | (buf == CLOSE))
    step = np.where(buf[pos] == OPEN, 1, -1).astype(np.int8)
    depth = np.cumsum(step, dtype=np.int32)  # after each bracket
    if depth.size == 0 or depth.min() < 0 or depth[-1] != 0 or (depth[:-1] == 0).any():
        raise MaskattnError("doctor_text_brackets", file=name)
    deepest = int(depth.max())
    if deepest > MAX_DEPTH:
        raise MaskattnError("doctor_dims", file=name, ndim=deepest)
    starts, ends = _tokens(buf)
    counts = _per_segment(starts, pos)  # tokens after each bracket
    leaf = np.flatnonzero((step[:-1] == 1) & (step[1:] == -1))  # "[" then "]": an innermost group
    if (depth[leaf] != deepest).any():
        raise MaskattnError("doctor_text_brackets", file=name)
    outside = counts.copy()
    outside[leaf] = 0
    if outside.any():  # a value between groups, not inside the innermost brackets
        raise MaskattnError("doctor_text_brackets", file=name)
    sizes = counts[leaf]
    if sizes.size and (sizes != sizes[0]).any():
        raise MaskattnError("doctor_text_ragged", file=name, lengths=_lengths(sizes))
    shape = []
    opens = step == 1
    for level in range(1, deepest):
        parents = np.flatnonzero(opens & (depth == level))
        children = np.flatnonzero(opens & (depth == level + 1))
        per = np.diff(np.searchsorted(children, np.append(parents, depth.size)))
        if (per != per[0]).any():
            raise MaskattnError("doctor_text_ragged", file=name, lengths=_lengths(per))
        shape.append(int(per[0]))
    shape.append(int(sizes[0]) if sizes.size else 0)
    values, tokens = parse_values(buf, starts, ends, name)
    return values.reshape(shape), tokens


def _bracketed(body: bytes, name: str):
    return _shape(body, name)


def _rows(text: bytes, name: str) -> tuple[np.ndarray, str]:
    """0/1 rows, one per line (blank lines skipped); a file of one token per
    line, each of the same 2+ digits 0 and 1, is compact rows."""
    buf = np.frombuffer(text, dtype=np.uint8)
    starts, ends = _tokens(buf)
    if starts.size == 0:
        raise MaskattnError("doctor_text_not_table", file=name, token=shown(text.strip(_SPACES)))
    values, tokens = parse_values(buf, starts, ends, name, refusal="doctor_text_not_table")
    line_starts = np.concatenate(([0], np.flatnonzero(buf == NEWLINE) + 1))
    widths = _per_segment(starts, line_starts)
    real = np.flatnonzero(widths)
    widths = widths[real]
    if (widths != widths[0]).any():
        bad = int(np.flatnonzero(widths != widths[0])[0])
        raise MaskattnError("doctor_text_ragged_row", file=name, line=int(real[bad]) + 1, got=int(widths[bad]),
                            want=int(widths[0]))
    if widths[0] == 1 and tokens.kinds == {"int"}:
        compact = _compact(buf, starts, ends, real, name)
        if compact is not None:
            return compact, "rows-compact"
    return values.reshape(widths.size, int(widths[0])), "rows-text"


def _compact(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, lines: np.ndarray,
             name: str) -> np.ndarray | None:
    """Lines of one token each, all of digits 0 / 1, some of 2+ digits: one
    key per digit (lines of different lengths are ragged rows)."""
    lengths = ends - starts
    if lengths.max() < 2 or not np.isin(buf[_TOKEN_BYTE[buf]], (ord("0"), ord("1"))).all():
        return None
    width = int(lengths[0])
    if (lengths != width).any():
        bad = int(np.flatnonzero(lengths != width)[0])
        raise MaskattnError("doctor_text_ragged_row", file=name, line=int(lines[bad]) + 1, got=int(lengths[bad]),
                            want=width)
    digits = buf[starts[:, None] + np.arange(width, dtype=np.int32)[None, :]]
    return (digits == ord("1")).astype(np.int64)


def _wrapped(text: bytes) -> tuple[str, bytes] | None:
    """("tensor" | "array", what is inside the parentheses) of tensor(...) / array(...)."""
    for kind in (b"tensor", b"array"):
        if text.startswith(kind + b"(") and text.endswith(b")"):
            return kind.decode(), text[len(kind) + 1:-1]
    return None


def parse_table(text: bytes | str, name: str) -> tuple[np.ndarray, str, str | None]:
    """(array, format, dtype named in the text) from a pasted mask."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    data = data.removeprefix(BOM).strip(_SPACES)
    if not data:
        raise MaskattnError("doctor_empty_file", file=name)
    if b"..." in data or "\u2026".encode() in data:
        raise MaskattnError("doctor_text_elided", file=name)
    wrapped = _wrapped(data)
    if wrapped:
        kind, inner = wrapped
        close = inner.rfind(b"]")
        body = inner[:close + 1].strip(_SPACES)
        if not body.startswith(b"[") or close < 0:
            raise MaskattnError("doctor_text_not_table", file=name, token=shown(inner.strip(_SPACES)))
        dtype = None
        for key, value in _SUFFIX.findall(inner[close + 1:]):
            if key == b"dtype":
                dtype = value.strip().decode("ascii", "replace").removeprefix("torch.").removeprefix("np.")
        array, _ = _bracketed(body, name)
        if kind == "tensor" and dtype is None:  # torch omits its defaults
            dtype = "float32" if array.dtype.kind == "f" else str(array.dtype)
        return array, "torch-text" if kind == "tensor" else "numpy-text", dtype
    if data.startswith(b"["):
        if not data.endswith(b"]"):
            raise MaskattnError("doctor_text_brackets", file=name)
        array, tokens = _bracketed(data, name)
        fmt = "numpy-text" if b"," not in data else "json" if tokens.json else "list-text"
        return array, fmt, None
    if b"[" in data or b"]" in data:
        raise MaskattnError("doctor_text_brackets", file=name)
    array, fmt = _rows(data, name)
    return array, fmt, None
