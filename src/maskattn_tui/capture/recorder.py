"""Writing a capture as it happens: one JSON line per call in
DIR/calls-<pid>.jsonl (calls-<pid>-<n>.jsonl when a pid comes back), the
masks through MaskStore. A call made inside a forward whose end is
followed (sites.py) is written when that forward ends, every other call at
once: a killed worker leaves every call of its finished forwards readable
(and of the one running, only what was written before it began). Every process writes
its own file; the manifest (manifest.py) joins them."""

from __future__ import annotations

import contextlib
import os
import threading

from maskattn_tui.capture.encoding import line as _ENCODE
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
        self._pending: list[str] = []  # lines of forwards still running
        self.sites.on_end = self.flush
        self.open()

    def open(self) -> None:
        """This process's calls file (again after a fork, under the child's pid)."""
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._pending = []  # (after a fork: the parent's, written by the parent)
        # a file of its own: a pid reused by a later child of the same run gets another name
        name, n = f"calls-{self.pid}.jsonl", 0
        while True:
            try:
                # unbuffered bytes: each write is one system call, with no text layer to flush
                self._file = open(os.path.join(self.folder, name), "xb", buffering=0)
                return
            except FileExistsError:
                n += 1
                name = f"calls-{self.pid}-{n}.jsonl"

    def close(self) -> None:
        self.flush()
        if self._file is not None:
            self._file.close()
            self._file = None

    def within(self, index: int | None, q_len: int | None = None) -> "_Within":
        """Calls recorded inside this one (the SDPA inside an HF layer's
        attention function) name it as `within`, and share its site."""
        return _Within(self._local, index, q_len, getattr(self._local, "where", None))

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

    def record(self, kind: str, describe, entry, where: dict | None = None, module=None) -> int | None:
        """One call: where it ran (`where`, or found from the frames; from
        `module`, the module it was made for, when given), what
        `describe(entry, store)` says of its arguments. Never raises: a
        failure is written as `error`."""
        if self._file is None:
            return None
        local = self._local
        local.recorded = getattr(local, "recorded", 0) + 1
        within = getattr(local, "within", None)
        if where is None:
            try:
                where = self.sites.locate(1, getattr(local, "site", None)) if within is not None \
                    else self.sites.locate(1) if module is None else self.sites.locate_module(module, 1)
            except Exception as exc:  # noqa: BLE001 - capture must not break the run
                where = {"site_error": repr(exc)[:200]}
            local.where = where  # (the calls made inside this one share it: within())
        try:
            body = describe(entry, self.store)
        except Exception as exc:  # noqa: BLE001
            body = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            self.errors += 1
        thread = self._thread_name()
        with self._lock:
            index = self.count
            self.count += 1
            record = {"index": index, "pid": self.pid, "kind": kind, **where, "thread": thread, "within": within,
                      **body}
            try:
                line = _ENCODE(record)
            except Exception as exc:  # noqa: BLE001 - NaN, or a value JSON cannot hold
                line = _ENCODE({"index": index, "pid": self.pid, "kind": kind, "error": repr(exc)[:300]})
            if self._file is not None:
                if self.sites.in_forward():  # written when the forward ends (sites: on_end)
                    self._pending.append(line)
                else:
                    self._write([line])
        return index

    def _write(self, lines: list) -> None:
        data = ("\n".join(lines) + "\n").encode("ascii")  # (the lines are ASCII: every other character escaped)
        try:
            while data:
                data = data[self._file.write(data):]
        except OSError:  # a full disk: the run goes on, the manifest counts what was lost
            self.errors += len(lines)

    def flush(self) -> None:
        """Write the lines of the forwards still running (at each forward's
        end, before a fork, when capture ends, when the calls are read)."""
        with self._lock:
            if self._pending and self._file is not None:
                pending, self._pending = self._pending, []
                self._write(pending)


class _Within:
    """Recorder.within's context (a class: a generator's context costs
    several times more, and every HF layer call enters one)."""

    __slots__ = ("local", "now", "previous")

    def __init__(self, local, index, q_len, where) -> None:
        self.local, self.now = local, (index, q_len, where)

    def __enter__(self) -> None:
        local = self.local
        self.previous = getattr(local, "within", None), getattr(local, "q_len", None), getattr(local, "site", None)
        local.within, local.q_len, local.site = self.now

    def __exit__(self, *exc) -> None:
        self.local.within, self.local.q_len, self.local.site = self.previous
