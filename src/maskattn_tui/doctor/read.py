"""Reading a saved mask: `load_mask(path, batch=None, head=None, key=None)`.

    .npy           versions 1-3, header checked, data memory-mapped (read_npy)
    .npz           one array, or the one --key names (read_npy)
    .pt / .pth     torch.load(weights_only=True), a tensor or a dict of
                   tensors with --key (read_tensors; needs torch)
    .safetensors   the safetensors numpy loader, --key (read_tensors)
    text           printed torch / numpy, JSON, 0/1 rows (text_table), at most 64 MiB

Only a regular file is opened (file_checks): a FIFO, a device or a socket
is refused before any read, so nothing blocks. Nothing is unpickled.

2-D (L, S), 3-D (N, L, S) and 4-D (B, H, L, S) masks; --batch / --head pick
the slice (default 0). A 3-D mask with N > 1 is read per *head* by SDPA,
whose (N, L, S) broadcasts against (B, H, L, S): flagged."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.file_checks import open_regular, read_bounded, regular_size
from maskattn_tui.doctor.read_npy import NPY_MAGIC, check_dims, check_dtype, read_npy, read_npz, zip_kind, zip_names
from maskattn_tui.doctor.representation import check_array
from maskattn_tui.errors import MaskattnError

TEXT_LIMIT = 64 << 20
ZIP_MAGIC = b"PK\x03\x04"
#: Slices compared for "how many distinct" (each is hashed once).
DISTINCT_LIMIT = 4096
#: Formats that hold named arrays (--key applies).
KEYED = ("npz", "pt", "safetensors")


@dataclass(frozen=True)
class MaskInfo:
    path: str
    format: str  # npy | npz | pt | safetensors | torch-text | numpy-text | json | list-text | rows-text | hf-pair
    shape: tuple[int, ...]  # as stored
    dtype: str  # as stored (bfloat16 stays "bfloat16" though read as float32)
    batch: int | None  # the slice shown (None for a 2-D mask)
    head: int | None
    distinct_slices: int | None  # among the leading dimensions (None for 2-D)
    #: a 3-D mask with N > 1: SDPA reads N as heads
    per_head_broadcast: bool = False
    #: the array read from a file of several (npz, safetensors, a dict in a .pt)
    key: str | None = None


def load_mask(path, batch: int | None = None, head: int | None = None,
              key: str | None = None) -> tuple[np.ndarray, MaskInfo]:
    """The 2-D slice to diagnose and what was read. Raises MaskattnError
    (one line naming the file) for anything that is not a readable mask."""
    name = os.fspath(path)
    array, fmt, dtype, used = read_array(name, key)
    mask, info = select(array, name, fmt, dtype, batch, head)
    return mask, info if used is None else _with_key(info, used)


def _with_key(info: MaskInfo, key: str) -> MaskInfo:
    from dataclasses import replace

    return replace(info, key=key)


def read_array(name: str, key: str | None = None) -> tuple[np.ndarray, str, str, str | None]:
    """(array, format, dtype as stored, the --key used)."""
    size = regular_size(name)
    try:
        with open_regular(name) as file:
            head = file.read(16)
    except OSError as exc:
        raise MaskattnError("doctor_unreadable", file=name, reason=exc.strerror or exc) from None
    if not head:
        raise MaskattnError("doctor_empty_file", file=name)
    fmt = _format(name, head, size)
    if key is not None and fmt not in KEYED:
        raise MaskattnError("doctor_key_not_here", file=name)
    if fmt == "npy":
        array = read_npy(name)
        return array, "npy", str(array.dtype), None
    if fmt == "npz":
        array, used = read_npz(name, key)
        return array, "npz", str(array.dtype), used
    if fmt == "pt":
        from maskattn_tui.doctor.read_tensors import read_pt

        array, dtype, used = read_pt(name, key)
        return array, "pt", dtype, used
    if fmt == "safetensors":
        from maskattn_tui.doctor.read_tensors import read_safetensors

        array, dtype, used = read_safetensors(name, key)
        return array, "safetensors", dtype, used
    if name.endswith(".npy"):
        raise MaskattnError("doctor_npy_header", file=name, reason="no .npy magic")
    return (*_text(name), None)


def _format(name: str, head: bytes, size: int) -> str:
    """What the file holds, by its first bytes (then its name)."""
    from maskattn_tui.doctor.read_tensors import looks_like_safetensors

    if head.startswith(NPY_MAGIC):
        return "npy"
    if head.startswith(ZIP_MAGIC):
        kind = zip_kind(zip_names(name))
        if kind == "zip":
            raise MaskattnError("doctor_zip_unknown", file=name)
        return "pt" if kind == "torch" else "npz"
    if name.endswith(".safetensors") or looks_like_safetensors(head, size):
        return "safetensors"
    if name.endswith((".pt", ".pth")):
        return "pt"
    return "text"


def _text(name: str) -> tuple[np.ndarray, str, str]:
    from maskattn_tui.doctor.text_table import parse_table

    data = read_bounded(name, TEXT_LIMIT)
    if not data.strip():
        raise MaskattnError("doctor_empty_file", file=name)
    try:
        data.isascii() or data.decode("utf-8")
    except UnicodeDecodeError:
        raise MaskattnError("doctor_not_text", file=name) from None
    array, fmt, dtype = parse_table(data, name)
    return array, fmt, dtype or str(array.dtype)


def _dims(name: str, ndim: int) -> None:
    check_dims(name, ndim)


def _pick(name: str, option: str, value: int | None, size: int) -> int:
    if value is None:
        return 0
    if not 0 <= value < size:
        raise MaskattnError("doctor_index_range", file=name, option=option, value=value, hi=size - 1)
    return value


def _distinct(array: np.ndarray) -> int | None:
    lead = array.shape[:-2]
    count = int(np.prod(lead))
    if count > DISTINCT_LIMIT:
        return None
    flat = array.reshape((count, *array.shape[-2:]))
    return len({hashlib.blake2b(np.ascontiguousarray(s).tobytes(), digest_size=16).digest() for s in flat})


def select(array: np.ndarray, name: str, fmt: str, dtype: str, batch: int | None,
           head: int | None) -> tuple[np.ndarray, MaskInfo]:
    """The (batch, head) slice of a 2-4-D mask, checked."""
    _dims(name, array.ndim)
    check_array(array, name)
    check_dtype(name, array.dtype)
    shape = tuple(int(n) for n in array.shape)
    if array.ndim == 2:
        for option, value in (("--batch", batch), ("--head", head)):
            if value is not None:
                raise MaskattnError("doctor_index_2d", file=name, option=option)
        return array, MaskInfo(name, fmt, shape, dtype, None, None, None)
    if array.ndim == 3:
        if batch is not None and head is not None:
            raise MaskattnError("doctor_index_3d", file=name)
        option = "--head" if head is not None else "--batch"
        index = _pick(name, option, head if head is not None else batch, shape[0])
        info = MaskInfo(name, fmt, shape, dtype, index, None, _distinct(array), shape[0] > 1)
        return array[index], info
    b = _pick(name, "--batch", batch, shape[0])
    h = _pick(name, "--head", head, shape[1])
    return array[b, h], MaskInfo(name, fmt, shape, dtype, b, h, _distinct(array))
