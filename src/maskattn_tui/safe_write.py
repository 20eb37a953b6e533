"""Writing a user's files safely: a temporary file beside the target (so the
final rename is atomic), created with the mode any new file gets under the
user's umask (mkstemp's 0600 would survive the rename), then renamed."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

#: What open() asks for; the kernel takes the umask off (0644 under 022).
NEW_FILE_MODE = 0o666


def temp_beside(target: Path) -> tuple[int, str]:
    """A new, empty temporary file in `target`'s folder: (fd, path). OSError
    when the folder cannot take it."""
    folder = target.parent if str(target.parent) else Path(".")
    # A short name: a target name near the file-name limit must still leave room.
    for _ in range(100):
        tmp = os.path.join(folder, f".{target.name[:40]}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, NEW_FILE_MODE), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def write_temp(target: Path, text: str, sync: bool = False) -> str:
    """`text` (UTF-8, "\\n" line ends) in a new temporary file beside
    `target`; its path. Nothing is left behind on failure."""
    fd, tmp = temp_beside(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        remove_quietly(tmp)
        raise
    return tmp


def remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
