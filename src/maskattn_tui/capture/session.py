"""`capture(dir=None)`: recording every attention call of a block of
code (or, through capture.run, of a whole script).

    from maskattn_tui import capture
    with capture("masks/") as cap:
        model.generate(**batch, max_new_tokens=3)
    print(cap.summary())

On: the TorchFunctionMode (mode.py) in this thread and in every thread
started meanwhile (Thread.run is wrapped: modes are per thread), the
module hooks that name the calls (sites.py), transformers' registries
(hf.py), a fresh calls file in a forked child. Off again on exit, even
when the block raises (the exception passes on, the manifest says it)."""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
import traceback

from maskattn_tui.capture import manifest
from maskattn_tui.capture.hf import HfHooks
from maskattn_tui.capture.mode import CaptureMode
from maskattn_tui.capture.recorder import Recorder
from maskattn_tui.capture.torch_modules import ModuleCalls

#: The captures running in this process (nested ones each record every
#: call: their modes stack), for threads and forks.
_ACTIVE: list = []
_FORK_HOOKED = False


def _after_fork_in_child() -> None:
    for cap in _ACTIVE:
        cap._recorder.open()
        cap.child = True


class Capture:
    def __init__(self, dir: str | os.PathLike | None = None, command: list[str] | None = None,
                 child: bool = False, weights: bool = False) -> None:
        self.dir = os.fspath(dir) if dir is not None else tempfile.mkdtemp(prefix="maskattn-capture-")
        self.command = command
        self.child = child  # a child process: writes its calls, not the manifest
        self.weights = weights  # keep each call's q and k (capture/weights.py)
        self.exception: str | None = None
        self.exit_status: int | None = None
        self.document: dict | None = None
        self._recorder: Recorder | None = None

    def __enter__(self) -> "Capture":
        import torch

        os.makedirs(self.dir, exist_ok=True)
        self._started = time.time()
        if not self.child:
            manifest.clear(self.dir)  # a capture replaces the folder's previous one
            manifest.write(self.dir, self._header(torch), complete=False)
        self._recorder = Recorder(self.dir, self.weights)
        self._mode = CaptureMode(self._recorder)
        self._hf = HfHooks(self._recorder)
        self._recorder.sites.install()
        self._recorder.sites.on_root = self._hf.install
        self._recorder.sites.modules = ModuleCalls(self._recorder, self._recorder.sites._names)
        self._hf.install()
        self._mode.hf = self._hf
        self._mode.__enter__()
        self._wrap_threads()
        global _FORK_HOOKED
        if not _FORK_HOOKED and hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_after_fork_in_child)
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
        if threading.Thread.run is self._captured_run:  # else a capture nested in this one is still on
            threading.Thread.run = self._thread_run
        try:
            self._mode.__exit__(None, None, None)
        finally:
            self._hf.remove()
            self._recorder.sites.remove()
            self._recorder.close()
        if not self.child:
            self.document = manifest.write(self.dir, self._header(torch), complete=True)

    def _wrap_threads(self) -> None:
        """Threads started while capture is on run under the mode too."""
        self._thread_run = run = threading.Thread.run
        mode_of = self

        def captured_run(thread):
            if mode_of not in _ACTIVE:
                return run(thread)
            with CaptureMode(mode_of._recorder):
                return run(thread)

        threading.Thread.run = self._captured_run = captured_run

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
            return manifest.read_calls(self.dir)
        return self.document["calls"]

    def summary(self, lang: str = "en") -> str:
        """One line per distinct mask, with the calls that used it."""
        from maskattn_tui.capture.doctor import summary_lines

        return "\n".join(summary_lines(self.calls, self.dir, lang))


def capture(dir: str | os.PathLike | None = None, weights: bool = False) -> Capture:
    """A context manager recording every attention call made inside it into
    `dir` (a new temporary folder when None); `weights`: keep each call's
    queries and keys too (memory: docs/capture.md)."""
    return Capture(dir, weights=weights)
