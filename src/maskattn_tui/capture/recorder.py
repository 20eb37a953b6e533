"""Writing a capture as it happens: one JSON line per call in
DIR/calls-<pid>.jsonl (calls-<pid>-<n>.jsonl when a pid comes back; flushed at once, so a killed worker leaves every
call it made readable), the masks through MaskStore. Every process writes
its own file; the manifest (manifest.py) joins them."""

from __future__ import annotations

import contextlib
import os
import threading

from maskattn_tui import strict_json
from maskattn_tui.capture.sites import Sites
from maskattn_tui.capture.store import MaskStore
from maskattn_tui.capture.weights import QkStore


class Recorder:
    def __init__(self, folder: str, weights: bool = False) -> None:
        self.folder = folder
        self.store = MaskStore(folder)
        #: --weights: where the calls' q and k go (None: not kept)
        self.qk = QkStore(folder) if weights else None
        self.sites = Sites()
        self.count = 0
        self.errors = 0
        self._lock = threading.Lock()
        self._local = threading.local()
        self._file = None
        self.open()

    def open(self) -> None:
        """This process's calls file (again after a fork, under the child's pid)."""
        self.pid = os.getpid()
        self._lock = threading.Lock()
        # a file of its own: a pid reused by a later child of the same run gets another name
        name, n = f"calls-{self.pid}.jsonl", 0
        while True:
            try:
                self._file = open(os.path.join(self.folder, name), "x", encoding="utf-8")
                return
            except FileExistsError:
                n += 1
                name = f"calls-{self.pid}-{n}.jsonl"

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def within(self, index: int | None, q_len: int | None = None) -> "_Within":
        """Calls recorded inside this one (the SDPA inside an HF layer's
        attention function) name it as `within`."""
        return _Within(self._local, index, q_len)

    def _thread_name(self) -> str:
        name = getattr(self._local, "name", None)
        if name is None:  # (a thread renamed after its first call keeps its first name)
            name = self._local.name = threading.current_thread().name
        return name

    def quiet(self) -> bool:
        """Inside a call already being recorded whole (the SDPA inside
        F.multi_head_attention_forward, an nn.MultiheadAttention module's
        own F call, flex's inner dispatch): not recorded again."""
        return getattr(self._local, "hush", 0) > 0

    def hush(self, by: int) -> None:
        self._local.hush = getattr(self._local, "hush", 0) + by

    @contextlib.contextmanager
    def hushed(self):
        self.hush(1)
        try:
            yield
        finally:
            self.hush(-1)

    def recorded(self) -> int:
        """How many calls this thread has recorded (one attention module's
        forward recorded nothing when the number did not change)."""
        return getattr(self._local, "recorded", 0)

    def outer_q_len(self) -> int | None:
        """The query length of the HF attention call this one runs inside."""
        return getattr(self._local, "q_len", None)

    def record(self, kind: str, describe, entry) -> int | None:
        """One call: where it ran, what `describe(entry, store)` says of
        its arguments. Never raises: a failure is written as `error`."""
        if self._file is None:
            return None
        self._local.recorded = getattr(self._local, "recorded", 0) + 1
        try:
            near, user = self.sites.frames(2)
            record = {"kind": kind, **self.sites.where(), "frame": near, "user_frame": user,
                      "thread": self._thread_name(),
                      "within": getattr(self._local, "within", None)}
        except Exception as exc:  # noqa: BLE001 - capture must not break the run
            record = {"kind": kind, "site_error": repr(exc)[:200]}
        try:
            record.update(describe(entry, self.store))
        except Exception as exc:  # noqa: BLE001
            record["error"] = f"{type(exc).__name__}: {exc}"[:300]
            self.errors += 1
        with self._lock:
            index = self.count
            self.count += 1
            record = {"index": index, "pid": self.pid, **record}
            try:
                line = strict_json.dumps(record, indent=None, ascii=True, default=_plain)
            except (TypeError, ValueError) as exc:
                line = strict_json.dumps({"index": index, "pid": self.pid, "kind": kind, "error": repr(exc)[:300]},
                                         indent=None, ascii=True)
            if self._file is not None:
                self._file.write(line + "\n")
                self._file.flush()
        return index


class _Within:
    """Recorder.within's context (a class: a generator's context costs
    several times more, and every HF layer call enters one)."""

    __slots__ = ("local", "now", "previous")

    def __init__(self, local, index, q_len) -> None:
        self.local, self.now = local, (index, q_len)

    def __enter__(self) -> None:
        local = self.local
        self.previous = getattr(local, "within", None), getattr(local, "q_len", None)
        local.within, local.q_len = self.now

    def __exit__(self, *exc) -> None:
        self.local.within, self.local.q_len = self.previous


def _plain(value):
    """Numbers from torch (SymInt, 0-d tensors) as plain numbers."""
    try:
        return float(value) if not isinstance(value, bool) else bool(value)
    except (TypeError, ValueError):
        return repr(value)
