"""numpy's own files, read without unpickling and without np.load:

    .npy   versions 1.0, 2.0 and 3.0 (a UTF-8 header): the header is parsed
           here (ast.literal_eval of at most 10,000 characters, as numpy
           does), checked (dtype, dimensions, that the data is all there),
           then the data is memory-mapped, never loaded whole
    .npz   a zip of .npy members (np.savez / savez_compressed): one member,
           or the one `--key NAME` names; a stored member is memory-mapped
           in place, a compressed one read (at most NPZ_LIMIT bytes)

Every refusal is one MaskattnError line; numpy's warnings (an overflowing
shape product, a Python 2 header) never reach stderr."""

from __future__ import annotations

import ast
import math
import struct
import warnings
import zipfile

import numpy as np

from maskattn_tui.doctor.file_checks import mib, open_regular, short_reason
from maskattn_tui.errors import MaskattnError

NPY_MAGIC = b"\x93NUMPY"
#: version -> (header length format, header encoding), as numpy writes them
HEADER_FORMATS = {(1, 0): ("<H", "latin1"), (2, 0): ("<I", "latin1"), (3, 0): ("<I", "utf8")}
MAX_HEADER = 10000
#: A compressed .npz member is read into memory: at most this many bytes.
NPZ_LIMIT = 1 << 30
#: Value kinds a mask may hold: bool, signed / unsigned integer, float.
MASK_KINDS = "biuf"


class _Header(ValueError):
    """The .npy header is not one numpy writes (its text, for the refusal)."""


def _read(file, count: int, what: str) -> bytes:
    data = file.read(count)
    if len(data) != count:
        raise _Header(f"the file ends inside the {what}")
    return data


def read_header(file) -> tuple[tuple[int, ...], bool, np.dtype]:
    """(shape, fortran_order, dtype) of the .npy stream at `file`, which is
    left at the first byte of the data."""
    magic = _read(file, 8, "magic string")
    if not magic.startswith(NPY_MAGIC):
        raise _Header("no .npy magic")
    version = (magic[6], magic[7])
    if version not in HEADER_FORMATS:
        raise _Header(f"format version {version[0]}.{version[1]}")
    length_format, encoding = HEADER_FORMATS[version]
    (length,) = struct.unpack(length_format, _read(file, struct.calcsize(length_format), "header length"))
    if length > MAX_HEADER:
        raise _Header(f"a header of {length} bytes")
    try:
        header = ast.literal_eval(_read(file, length, "header").decode(encoding))
    except (SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError):
        raise _Header("the header is not a Python literal") from None
    if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
        raise _Header("the header lacks descr / fortran_order / shape")
    shape, fortran = header["shape"], header["fortran_order"]
    if not isinstance(shape, tuple) or not all(type(n) is int and n >= 0 for n in shape):
        raise _Header(f"shape {short_reason(repr(shape), 40)}")
    if not isinstance(fortran, bool):
        raise _Header("fortran_order is not True / False")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dtype = np.lib.format.descr_to_dtype(header["descr"])
    except (TypeError, ValueError):
        raise _Header(f"dtype {short_reason(repr(header['descr']), 40)}") from None
    return shape, fortran, dtype


def check_dtype(name: str, dtype: np.dtype) -> None:
    if dtype.hasobject:
        raise MaskattnError("doctor_object", file=name, dtype=str(dtype))
    if dtype.fields is not None or dtype.subdtype is not None or dtype.kind not in MASK_KINDS:
        raise MaskattnError("doctor_dtype", file=name, dtype=str(dtype))


def check_dims(name: str, ndim: int) -> None:
    if not 2 <= ndim <= 4:
        raise MaskattnError("doctor_dims", file=name, ndim=ndim)


def _checked_header(name: str, file) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    try:
        shape, fortran, dtype = read_header(file)
    except _Header as exc:
        raise MaskattnError("doctor_npy_header", file=name, reason=str(exc)) from None
    check_dtype(name, dtype)
    check_dims(name, len(shape))
    return shape, fortran, dtype, math.prod(shape) * dtype.itemsize  # Python ints: no overflow


def _mapped(name: str, dtype: np.dtype, shape, fortran: bool, offset: int) -> np.ndarray:
    if math.prod(shape) == 0:
        return np.empty(shape, dtype)  # mmap cannot map nothing; refused later as "no cells"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return np.memmap(name, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C")
    except (ValueError, OSError, OverflowError, RuntimeWarning) as exc:
        raise MaskattnError("doctor_npy_data", file=name, reason=short_reason(exc, 80)) from None


def read_npy(name: str) -> np.ndarray:
    """The array of a .npy file, memory-mapped."""
    with open_regular(name) as file:
        shape, fortran, dtype, need = _checked_header(name, file)
        offset = file.tell()
        size = file.seek(0, 2)
    if size - offset < need:
        raise MaskattnError("doctor_npy_short", file=name, shape=_shape(shape), dtype=str(dtype),
                            need=f"{need:,}", have=f"{size - offset:,}")
    return _mapped(name, dtype, shape, fortran, offset)


def _shape(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


# --- .npz ------------------------------------------------------------------------------


def pick_key(name: str, keys: list[str], key: str | None, what: str) -> str:
    """The one array of a file holding several, by --key."""
    if not keys:
        raise MaskattnError("doctor_no_arrays", file=name, what=what)
    if key is None:
        if len(keys) == 1:
            return keys[0]
        raise MaskattnError("doctor_key_needed", file=name, count=len(keys), keys=_keys_text(keys))
    if key not in keys:
        raise MaskattnError("doctor_key_missing", file=name, wanted=key, keys=_keys_text(keys))
    return key


def _keys_text(keys: list[str], most: int = 8) -> str:
    shown = ", ".join(short_reason(k, 40) for k in keys[:most])
    return shown + (f", \u2026 (+{len(keys) - most})" if len(keys) > most else "")


def zip_kind(names: list[str]) -> str:
    """"torch" for a torch.save archive, "npz" for np.savez, else "zip"."""
    if any(n.endswith("/data.pkl") or n == "data.pkl" for n in names):
        return "torch"
    if any(n.endswith(".npy") for n in names):
        return "npz"
    return "zip"


def zip_names(name: str) -> list[str]:
    try:
        with open_regular(name) as file, zipfile.ZipFile(file) as archive:
            return archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise MaskattnError("doctor_bad_zip", file=name, reason=short_reason(exc, 80)) from None


def read_npz(name: str, key: str | None) -> tuple[np.ndarray, str]:
    """(array, its key) of an .npz file."""
    try:
        with open_regular(name) as file, zipfile.ZipFile(file) as archive:
            members = {n[:-4]: n for n in archive.namelist() if n.endswith(".npy")}
            chosen = pick_key(name, list(members), key, "npz")
            info = archive.getinfo(members[chosen])
            where = f"{name}[{chosen}]"
            if info.flag_bits & 0x1:
                raise MaskattnError("doctor_bad_zip", file=where, reason="encrypted")
            with archive.open(info) as member:
                shape, fortran, dtype, need = _checked_header(where, member)
                header_length = member.tell()
                if info.compress_type == zipfile.ZIP_STORED:
                    offset = _stored_offset(file, info) + header_length
                    if info.file_size - header_length < need:
                        raise _short(where, shape, dtype, need, info.file_size - header_length)
                    return _mapped(name, dtype, shape, fortran, offset), chosen
                if need > NPZ_LIMIT:
                    raise MaskattnError("doctor_npz_large", file=where, size=mib(need), limit=mib(NPZ_LIMIT))
                data = member.read(need)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise MaskattnError("doctor_bad_zip", file=name, reason=short_reason(exc, 80)) from None
    if len(data) < need:
        raise _short(where, shape, dtype, need, len(data))
    flat = np.frombuffer(data, dtype=dtype)
    return (flat.reshape(shape, order="F" if fortran else "C")), chosen


def _short(where: str, shape, dtype, need: int, have: int) -> MaskattnError:
    return MaskattnError("doctor_npy_short", file=where, shape=_shape(shape), dtype=str(dtype),
                         need=f"{need:,}", have=f"{max(0, have):,}")


def _stored_offset(file, info: zipfile.ZipInfo) -> int:
    """Where a stored member's bytes start: after its local file header
    (30 bytes, then the name and the extra field, whose lengths it gives)."""
    file.seek(info.header_offset)
    local = file.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile("bad local file header")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + name_length + extra_length
