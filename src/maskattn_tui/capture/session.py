"""`capture(dir=None)`: recording every attention call of a block of
code (or, through capture.run, of a whole script).

    from maskattn_tui import capture
    with capture("masks/") as cap:
        model.generate(**batch, max_new_tokens=3)
    print(cap.summary())

On: the wrapped attention functions (mode.py; every thread sees them),
the forwards of the attention modules whose fast paths call none of them
(torch_modules.py), the walk and the root hooks that name the calls
(sites.py), transformers' registries (hf.py), a fresh calls file in a
forked child. Off again on exit, even
when the block raises (the exception passes on, the manifest says it)."""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback

from maskattn_tui.capture import manifest
from maskattn_tui.capture.hf import HfHooks
from maskattn_tui.capture.mode import CallPatches
from maskattn_tui.capture.recorder import Recorder
from maskattn_tui.capture.torch_modules import ModuleCalls
from maskattn_tui.errors import MaskattnError

#: The captures running in this process (nested ones each record every
#: call: their modes stack), for threads and forks.
_ACTIVE: list = []
_FORK_HOOKED = False


def _before_fork() -> None:
    for cap in _ACTIVE:  # the lines of a running forward are the parent's: written before the child copies them
        cap._recorder.flush()


def _after_fork_in_child() -> None:
    for cap in _ACTIVE:
        cap._recorder.open()
        cap.child = True
        cap._unlock()  # the parent's lock, not the child's: a child living on must not hold the folder


class Capture:
    def __init__(self, dir: str | os.PathLike | None = None, command: list[str] | None = None,
                 child: bool = False, weights: bool = False) -> None:
        given = os.fspath(dir) if dir is not None else tempfile.mkdtemp(prefix="maskattn-capture-")
        # absolute now: a script that calls os.chdir must not move the capture
        self.dir = os.path.abspath(given)
        self._given = given
        self.command = command
        self.child = child  # a child process: writes its calls, not the manifest
        self.weights = weights  # keep each call's q and k (capture/weights.py)
        self.exception: str | None = None
        self.exit_status: int | None = None
        self.document: dict | None = None
        self._recorder: Recorder | None = None
        self._lock: int | None = None

    def open(self) -> None:
        """Make the folder, hold it (one capture writes into a folder at a
        time) and start the manifest: one MaskattnError when the folder
        cannot be used, before anything runs."""
        if self._recorder is not None:
            return
        import torch

        try:
            os.makedirs(self.dir, exist_ok=True)
            if not self.child:
                self._hold()
                manifest.clear(self.dir)  # a capture replaces the folder's previous one
            self._started = time.time()
            if not self.child:
                manifest.write(self.dir, self._header(torch), complete=False)
            self._recorder = Recorder(self.dir, self.weights)
        except OSError as exc:
            self._unlock()
            raise MaskattnError("capture_out_unusable", folder=self._given,
                                reason=exc.strerror or type(exc).__name__) from None

    def _hold(self) -> None:
        """An exclusive lock on the folder itself (flock: released by the
        kernel when this process ends, however it ends)."""
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock
            return
        fd = os.open(self.dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise MaskattnError("capture_busy", folder=self._given) from None
        self._lock = fd

    def _unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def __enter__(self) -> "Capture":
        self.open()
        self._calls = CallPatches(self._recorder)
        sites = self._recorder.sites
        self._modules = ModuleCalls(self._recorder, sites._names)
        self._hf = HfHooks(self._recorder, self._modules)
        sites.on_root = self._hf.install
        sites.on_forward = self._modules.forward_record
        sites.generating = self._hf.generating
        sites.install()
        self._modules.install()
        self._hf.install()
        self._calls.install()
        global _FORK_HOOKED
        if not _FORK_HOOKED and hasattr(os, "register_at_fork"):
            os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
            _FORK_HOOKED = True
        _ACTIVE.append(self)
        return self

    def __exit__(self, kind, value, tb) -> bool:
        if kind is not None and kind is not SystemExit:
            self.exception = "".join(traceback.format_exception_only(kind, value)).strip()
        self.stop()
        return False

    def stop(self) -> None:
        if self not in _ACTIVE:
            return
        import torch

        _ACTIVE.remove(self)
        try:
            self._calls.remove()
        finally:
            self._hf.remove()
            self._modules.remove()
            self._recorder.sites.remove()
            self._recorder.close()
        try:
            if not self.child:
                self.document = manifest.write(self.dir, self._header(torch), complete=True)
        finally:
            self._unlock()

    def _header(self, torch) -> dict:
        transformers = sys.modules.get("transformers")
        return {"command": self.command, "pid": os.getpid(), "started": getattr(self, "_started", None),
                "torch": torch.__version__, "weights": self.weights, "transformers": getattr(transformers, "__version__", None),
                "exception": self.exception, "exit_status": self.exit_status,
                "recording_errors": self._recorder.errors if self._recorder else 0}

    # --- reading the result -------------------------------------------------
    @property
    def calls(self) -> list[dict]:
        if self.document is None:
            if self._recorder is not None:
                self._recorder.flush()
            return manifest.read_calls(self.dir)
        return self.document["calls"]

    def summary(self, lang: str = "en") -> "Summary":
        """One line per distinct mask, with the calls that used it (text; in
        a notebook, HTML with each mask's worst finding level)."""
        from maskattn_tui.capture.doctor import summary_rows

        return Summary(summary_rows(self.calls, self.dir, lang), self.dir, lang)


class Summary(str):
    """Capture.summary(): the text (print it, compare it, write it), and
    for Jupyter the same lines as HTML (render.notebook), coloured with
    each mask's level word beside; its repr is the text."""

    def __new__(cls, rows: list[tuple[str | None, str]], folder: str, lang: str) -> "Summary":
        text = super().__new__(cls, "\n".join(line for _, line in rows))
        text.rows, text.folder, text.lang = rows, folder, lang
        return text

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        from maskattn_tui.render.notebook import summary_html

        return summary_html(self.rows, self.folder, self.lang)


def capture(dir: str | os.PathLike | None = None, weights: bool = False) -> Capture:
    """A context manager recording every attention call made inside it into
    `dir` (a new temporary folder when None); `weights`: keep each call's
    queries and keys too (memory: docs/capture.md)."""
    return Capture(dir, weights=weights)
