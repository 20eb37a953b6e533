"""The tables of a capture folder, each checked before it is used:
masks/<hash>.npy (a call's 2-D table) and qk/<hash>.npy (`--weights`' q
and k). A regular file of one name inside the folder (folder.open_entry),
at most TABLE_LIMIT bytes, a .npy header numpy writes (the doctor's
reader), the shape the call gives it, and bytes that hash to its own name:
so an outside file, or another table, cannot stand in for a mask. The
data is memory-mapped from the checked descriptor, never reopened by name."""

from __future__ import annotations

import hashlib
import os
import re

from maskattn_tui.capture.folder import Refused, close_dir, open_dir, open_entry, subfolder
from maskattn_tui.capture.summary import calls_text
from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.printable import escaped

#: A mask or q / k file (a 32,768 x 32,768 float32 table is 4 GiB); it is
#: memory-mapped and hashed, never read whole.
TABLE_LIMIT = 4 << 30
_HASH = re.compile(r"[0-9a-f]{20}")



def table_digest(array) -> str:
    """The name capture gives a table: blake2b of its dtype, shape and C-order bytes."""
    import numpy as np

    h = hashlib.blake2b(digest_size=10)
    h.update(f"{array.dtype.str}{array.shape}".encode())
    h.update(np.ascontiguousarray(array).data)
    return h.hexdigest()


def mask_path(folder: str, digest: str) -> str:
    return os.path.join(folder, "masks", digest + ".npy")


def read_table(folder: str, where: str, digest: str, shape: tuple | None = None, dims: int = 2):
    """The array of `where`/<digest>.npy (where: "masks" or "qk"),
    memory-mapped, checked: a regular file of one name in the folder, a
    .npy header numpy writes (the doctor's reader), `dims` dimensions (and
    `shape` when given), bytes that hash to its name. Refused, or the
    doctor's MaskattnError for a bad .npy, naming the file."""
    shown = os.path.join(folder, where, digest + ".npy")
    if not _HASH.fullmatch(digest):
        raise Refused(shown, "name")
    top = open_dir(folder)
    try:
        sub = subfolder(top, where, os.path.join(folder, where))
        try:
            fd, info = open_entry(sub, digest + ".npy", shown, TABLE_LIMIT)
        finally:
            close_dir(sub)
    finally:
        close_dir(top)
    with os.fdopen(fd, "rb") as file:
        array = _mapped(file, info.st_size, shown)
    if array.ndim != dims or shape is not None and tuple(array.shape) != tuple(shape):
        raise Refused(shown, "shape", found="x".join(map(str, array.shape)), wanted="x".join(map(str, shape or ())))
    if table_digest(array) != digest:
        raise Refused(shown, "hash")
    return array


def _mapped(file, size: int, shown: str):
    """The .npy at `file` (an open descriptor: never reopened by name),
    header read and checked by the doctor's reader, data memory-mapped."""
    import math

    import numpy as np

    from maskattn_tui.doctor.read_npy import check_dtype, read_header

    try:
        shape, fortran, dtype = read_header(file)
    except ValueError as exc:
        raise MaskattnError("doctor_npy_header", file=shown, reason=str(exc)) from None
    check_dtype(shown, dtype)
    offset, need = file.tell(), math.prod(shape) * dtype.itemsize
    if size - offset < need:
        raise MaskattnError("doctor_npy_short", file=shown, shape="x".join(map(str, shape)), dtype=str(dtype),
                            need=f"{need:,}", have=f"{size - offset:,}")
    if need == 0:
        return np.empty(shape, dtype)
    return np.memmap(file, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C")


class CallsNote(MaskattnError):
    """A table left out, with the calls that used it: "call(s) #3, 5: {why}"."""

    def __init__(self, calls: list[dict], problem: MaskattnError) -> None:
        self.calls, self.problem = calls, problem
        super().__init__("capture_refused")

    def message(self, lang: str) -> str:
        return t("capture_folder.calls_note", lang, calls=calls_text(self.calls), message=self.problem.message(lang))


def read_table_of(folder: str, digest: str, users: list[dict]):
    """(2-D table, MaskInfo) of mask `digest`, checked against the calls that
    used it (each of them has its shape); MaskattnError when refused."""
    from maskattn_tui.doctor.read import select

    shapes = sorted({(c["q_len"], c["k_len"]) for c in users})
    if len(shapes) > 1:
        raise Refused(mask_path(folder, digest), "shapes",
                                     shapes=", ".join(f"{q}x{k}" for q, k in shapes))
    table = read_table(folder, "masks", digest, shapes[0])
    # the name is only shown from here on (the table is read): shown escaped wherever it goes
    return select(table, escaped(mask_path(folder, digest)), "npy", str(table.dtype), None, None)
