"""Reading a saved mask: `load_mask(path, batch=None, head=None)`.

    .npy   header read first (dtype and shape, no unpickling); an object
           array is refused; the data is memory-mapped, never loaded whole
    .pt    torch.load(weights_only=True, map_location="cpu") when torch is
           installed (`pip install 'maskattn-tui[torch]'`)
    text   printed torch / numpy, JSON, 0/1 rows (text_table), at most 64 MiB

2-D (L, S), 3-D (N, L, S) and 4-D (B, H, L, S) masks; --batch / --head pick
the slice (default 0). A 3-D mask with N > 1 is read per *head* by SDPA,
whose (N, L, S) broadcasts against (B, H, L, S): flagged."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.representation import check_array
from maskattn_tui.errors import MaskattnError

TEXT_LIMIT = 64 << 20
NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"
#: Slices compared for "how many distinct" (each is hashed once).
DISTINCT_LIMIT = 4096


@dataclass(frozen=True)
class MaskInfo:
    path: str
    format: str  # npy | pt | torch-text | numpy-text | json | list-text | rows-text | hf-pair
    shape: tuple[int, ...]  # as stored
    dtype: str  # as stored (bfloat16 stays "bfloat16" though read as float32)
    batch: int | None  # the slice shown (None for a 2-D mask)
    head: int | None
    distinct_slices: int | None  # among the leading dimensions (None for 2-D)
    #: a 3-D mask with N > 1: SDPA reads N as heads
    per_head_broadcast: bool = False


def load_mask(path, batch: int | None = None, head: int | None = None) -> tuple[np.ndarray, MaskInfo]:
    """The 2-D slice to diagnose and what was read. Raises MaskattnError
    (one line naming the file) for anything that is not a readable mask."""
    name = os.fspath(path)
    array, fmt, dtype = read_array(name)
    return select(array, name, fmt, dtype, batch, head)


def read_array(name: str) -> tuple[np.ndarray, str, str]:
    if not os.path.exists(name):
        raise MaskattnError("doctor_missing", file=name)
    if os.path.isdir(name):
        raise MaskattnError("doctor_directory", file=name)
    try:
        size = os.path.getsize(name)
        with open(name, "rb") as file:
            head = file.read(8)
    except OSError as exc:
        raise MaskattnError("doctor_unreadable", file=name, reason=exc.strerror or exc) from None
    if size == 0:
        raise MaskattnError("doctor_empty_file", file=name)
    if head.startswith(NPY_MAGIC):
        array = _npy(name)
        return array, "npy", str(array.dtype)
    if head.startswith(ZIP_MAGIC) or name.endswith((".pt", ".pth")):
        return _pt(name)
    if name.endswith(".npy"):
        raise MaskattnError("doctor_npy_header", file=name, reason="no .npy magic")
    if size > TEXT_LIMIT:
        raise MaskattnError("doctor_too_large", file=name, size=_mib(size), limit=_mib(TEXT_LIMIT))
    return _text(name)


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.0f} MiB"


def _npy(name: str) -> np.ndarray:
    fmt = np.lib.format
    try:
        with open(name, "rb") as file:
            version = fmt.read_magic(file)
            if version == (1, 0):
                shape, _, dtype = fmt.read_array_header_1_0(file)
            elif version == (2, 0):
                shape, _, dtype = fmt.read_array_header_2_0(file)
            else:
                raise ValueError(f"format version {version[0]}.{version[1]}")
    except (ValueError, OSError, SyntaxError) as exc:
        raise MaskattnError("doctor_npy_header", file=name, reason=str(exc)[:80]) from None
    if dtype.hasobject or dtype.fields is not None:
        raise MaskattnError("doctor_object", file=name, dtype=str(dtype))
    _dims(name, len(shape))
    try:
        array = np.load(name, allow_pickle=False, mmap_mode="r")
    except (ValueError, OSError) as exc:
        raise MaskattnError("doctor_npy_data", file=name, reason=str(exc)[:80]) from None
    return array


def _pt(name: str) -> tuple[np.ndarray, str, str]:
    try:
        import torch
    except ImportError:
        raise MaskattnError("doctor_no_torch", file=name) from None
    try:
        with open(name, "rb") as file:
            obj = torch.load(file, weights_only=True, map_location="cpu")
    except Exception as exc:  # torch raises many kinds (UnpicklingError, RuntimeError...)
        raise MaskattnError("doctor_pt_load", file=name, reason=str(exc).splitlines()[0][:100] if str(exc) else
                            type(exc).__name__) from None
    if not torch.is_tensor(obj):
        raise MaskattnError("doctor_pt_not_tensor", file=name, kind=type(obj).__name__)
    tensor = obj.detach().cpu()
    dtype = str(tensor.dtype).removeprefix("torch.")
    if tensor.dtype in (torch.bfloat16, torch.float16):
        tensor = tensor.float()  # numpy has no bfloat16; float32 keeps every value
    try:
        array = tensor.numpy()
    except (TypeError, RuntimeError) as exc:
        raise MaskattnError("doctor_dtype", file=name, dtype=dtype) from exc
    return array, "pt", dtype


def _text(name: str) -> tuple[np.ndarray, str, str]:
    from maskattn_tui.doctor.text_table import parse_table

    try:
        with open(name, encoding="utf-8") as file:
            text = file.read()
    except UnicodeDecodeError:
        raise MaskattnError("doctor_not_text", file=name) from None
    except OSError as exc:
        raise MaskattnError("doctor_unreadable", file=name, reason=exc.strerror or exc) from None
    array, fmt, dtype = parse_table(text, name)
    return array, fmt, dtype or str(array.dtype)


def _dims(name: str, ndim: int) -> None:
    if not 2 <= ndim <= 4:
        raise MaskattnError("doctor_dims", file=name, ndim=ndim)


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
