"""Masks pasted as text, parsed without evaluating anything:

    tensor([[ True, False], [ True,  True]])          printed torch tensor
    tensor([[ 0.0000e+00, -3.4028e+38], ...], dtype=torch.bfloat16, device='cuda:0')
    [[ True False] [ True  True]]   [[  0. -inf] ...]  printed numpy array
    array([[0., -inf], ...], dtype=float32)            numpy repr
    [[1, 0], [1, 1]]                                   JSON (or a Python list)
    1 0 0 / 1,1,0                                      0/1 rows, one per line

Values are tokens (True/False/true/false, numbers, inf, nan); anything else
is refused. Shapes are checked bracket level by bracket level with regular
expressions (no Python loop per value). An elided printout (`...`) is
refused: it is not the whole mask."""

from __future__ import annotations

import json
import re

import numpy as np

from maskattn_tui.errors import MaskattnError

_NUMBER = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|Infinity|nan|NaN)"
_VALUE = re.compile(rf"True|False|true|false|{_NUMBER}")
_JUNK = re.compile(r"[^\s,\[\]]+")
_WRAPPED = re.compile(r"^(tensor|array)\((.*)\)$", re.S)
_SUFFIX = re.compile(r"(\w+)\s*=\s*([^,]+)")
_INNERMOST = re.compile(r"\[(v*)\]")
_INT = re.compile(r"[-+]?\d+")
_BOOLS = {"True": True, "true": True, "False": False, "false": False}


def _values(tokens: list[str], name: str) -> np.ndarray:
    bools = [tok in _BOOLS for tok in tokens]
    if all(bools):
        return np.array([_BOOLS[tok] for tok in tokens], dtype=bool)
    if any(bools):
        raise MaskattnError("doctor_text_mixed", file=name)
    if all(map(_INT.fullmatch, tokens)):
        return np.array(tokens, dtype=np.int64)
    return np.array(tokens, dtype=np.float64)


def _shape(compact: str, name: str) -> tuple[int, ...]:
    """The shape of a bracketed table whose values are each written "v"."""
    shape: list[int] = []
    while compact != "v":
        groups = [len(g) for g in _INNERMOST.findall(compact)]
        if not groups:
            raise MaskattnError("doctor_text_brackets", file=name)
        if len(set(groups)) != 1:
            raise MaskattnError("doctor_text_ragged", file=name, lengths=_lengths(groups))
        shape.insert(0, groups[0])
        compact = _INNERMOST.sub("v", compact)
    return tuple(shape)


def _lengths(groups: list[int]) -> str:
    seen = sorted(set(groups))
    return ", ".join(map(str, seen[:5])) + (", ..." if len(seen) > 5 else "")


def _bracketed(body: str, name: str) -> np.ndarray:
    tokens = _VALUE.findall(body)
    compact = _VALUE.sub("v", body)
    junk = _JUNK.search(compact.replace("v", " "))
    if junk:
        raise MaskattnError("doctor_text_token", file=name, token=junk.group(0)[:20])
    compact = re.sub(r"[\s,]+", "", compact)
    if not compact.startswith("["):
        raise MaskattnError("doctor_text_brackets", file=name)
    shape = _shape(compact, name)
    if int(np.prod(shape)) != len(tokens):
        raise MaskattnError("doctor_text_brackets", file=name)
    return _values(tokens, name).reshape(shape)


def _rows(text: str, name: str) -> np.ndarray:
    lines = [line for line in text.splitlines() if line.strip()]
    rows = [re.split(r"[\s,]+", line.strip().strip(",")) for line in lines]
    tokens = [tok for r in rows for tok in r]
    for tok in tokens:
        if not _VALUE.fullmatch(tok):
            raise MaskattnError("doctor_text_not_table", file=name, token=tok[:20])
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
        raise MaskattnError("doctor_text_ragged_row", file=name, line=bad + 1, got=len(rows[bad]),
                            want=len(rows[0]))
    return _values(tokens, name).reshape(len(rows), len(rows[0]))


def parse_table(text: str, name: str) -> tuple[np.ndarray, str, str | None]:
    """(array, format, dtype named in the text) from a pasted mask."""
    text = text.strip()
    if not text:
        raise MaskattnError("doctor_empty_file", file=name)
    if "..." in text or "\u2026" in text:
        raise MaskattnError("doctor_text_elided", file=name)
    dtype = None
    wrapped = _WRAPPED.match(text)
    if wrapped:
        kind, inner = wrapped.groups()
        close = inner.rfind("]")
        if not inner.lstrip().startswith("[") or close < 0:
            raise MaskattnError("doctor_text_not_table", file=name, token=inner[:20])
        for key, value in _SUFFIX.findall(inner[close + 1:]):
            if key == "dtype":
                dtype = value.strip().removeprefix("torch.").removeprefix("np.")
        array = _bracketed(inner[: close + 1], name)
        if kind == "tensor" and dtype is None:  # torch omits its defaults
            dtype = "float32" if array.dtype.kind == "f" else str(array.dtype)
        return array, "torch-text" if kind == "tensor" else "numpy-text", dtype
    if text.startswith("["):
        fmt = "numpy-text" if "," not in text else "json" if _is_json(text) else "list-text"
        return _bracketed(text, name), fmt, None
    return _rows(text, name), "rows-text", None


def _is_json(text: str) -> bool:
    try:
        json.loads(text, parse_constant=lambda c: 0)
    except ValueError:
        return False
    return True
