"""Capture in a Python child of `maskattn-tui capture` (found on PYTHONPATH):
once the child imports torch, it records its attention calls into its own
calls file of the parent's folder (it never writes the manifest). A child
that never imports torch pays one environment lookup and the import of
capture/after_import.py (the standard library only)."""

import os
import sys


def _start() -> None:
    import atexit

    from maskattn_tui.capture.session import Capture

    cap = Capture(os.environ["MASKATTN_CAPTURE_DIR"], child=True,
                  weights=bool(os.environ.get("MASKATTN_CAPTURE_WEIGHTS")))
    cap.__enter__()
    atexit.register(cap.stop)


def _when_torch_loads(name, module) -> None:
    try:
        _start()
    except Exception as exc:  # noqa: BLE001 - the child must run as it would
        sys.stderr.write(f"maskattn-tui capture: not capturing in pid {os.getpid()}: {exc}\n")


if os.environ.get("MASKATTN_CAPTURE_DIR") and os.path.isdir(os.environ["MASKATTN_CAPTURE_DIR"]):
    from maskattn_tui.capture.after_import import AfterImport

    # torch loads as usual, then capture starts
    sys.meta_path.insert(0, AfterImport(lambda name: name == "torch", _when_torch_loads, once=True))
