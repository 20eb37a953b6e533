"""What a path the user named is, before anything reads it: a regular file
(opened without blocking), or one line saying what it is instead. A FIFO,
a terminal, /dev/zero or a socket would block a read or never end; a
symlink loop or a name too long is told as itself, not as "no such file".
Also `short_reason`: a library's error text cut to one line at a word."""

from __future__ import annotations

import errno
import os
import stat

from maskattn_tui.errors import MaskattnError

#: What a non-regular file is, named in the refusal.
KINDS = ((stat.S_ISFIFO, "fifo"), (stat.S_ISCHR, "char"), (stat.S_ISBLK, "block"), (stat.S_ISSOCK, "socket"))


def _refuse_stat(name: str, exc: OSError) -> MaskattnError:
    if exc.errno == errno.ELOOP:
        return MaskattnError("doctor_symlink_loop", file=name)
    if exc.errno == errno.ENAMETOOLONG:
        return MaskattnError("doctor_name_too_long", file=_shown(name))
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return MaskattnError("doctor_missing", file=name)
    return MaskattnError("doctor_unreadable", file=name, reason=exc.strerror or exc)


def _shown(name: str, most: int = 60) -> str:
    return name if len(name) <= most else name[: most - 1] + "\u2026"


def check_kind(name: str, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise MaskattnError("doctor_directory", file=name)
    if not stat.S_ISREG(mode):
        kind = next((k for test, k in KINDS if test(mode)), "special")
        raise MaskattnError(f"doctor_not_regular_{kind}", file=name)


def regular_size(name: str) -> int:
    """The size of `name`, a regular file (symlinks followed); MaskattnError
    for anything else, without opening it."""
    try:
        info = os.stat(name)
    except OSError as exc:
        raise _refuse_stat(name, exc) from None
    except ValueError:  # a NUL in the name
        raise MaskattnError("doctor_missing", file=name) from None
    check_kind(name, info.st_mode)
    return info.st_size


def open_regular(name: str):
    """A binary file object for `name`, checked again on the open descriptor
    (the path may have been replaced since it was looked at): O_NONBLOCK so
    that a FIFO put there meanwhile cannot block the open."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(name, flags)
    except OSError as exc:
        raise _refuse_stat(name, exc) from None
    try:
        check_kind(name, os.fstat(fd).st_mode)
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)  # a regular file: reads never wait anyway
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(name: str, limit: int) -> bytes:
    """At most `limit` bytes of a regular file, refusing a longer one
    unread when its size says so (st_size is not trusted below the limit:
    /proc files say 0 and hold text)."""
    try:
        with open_regular(name) as file:
            size = os.fstat(file.fileno()).st_size
            if size > limit:
                raise MaskattnError("doctor_too_large", file=name, size=mib(size), limit=mib(limit))
            data = file.read(limit + 1)
    except OSError as exc:
        raise _refuse_stat(name, exc) from None
    if len(data) > limit:
        raise MaskattnError("doctor_too_large", file=name, size=f"> {mib(limit)}", limit=mib(limit))
    return data


def mib(size: int) -> str:
    return f"{size / (1 << 20):.0f} MiB"


def short_reason(text: object, most: int = 100) -> str:
    """The first line of a library's message, at most `most` characters,
    cut at a word with an ellipsis (never mid-word)."""
    line = next((part.strip() for part in str(text).splitlines() if part.strip()), "")
    if len(line) <= most:
        return line
    cut = line[:most].rsplit(" ", 1)[0].rstrip(" ,;:.(")
    return (cut or line[:most]) + "\u2026"
