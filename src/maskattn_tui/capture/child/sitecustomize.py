"""Capture in a Python child of `maskattn-tui capture` (found on PYTHONPATH):
once the child imports torch, it records its attention calls into its own
calls file of the parent's folder (it never writes the manifest). A child
that never imports torch pays one environment lookup."""

import os
import sys


def _start() -> None:
    import atexit

    from maskattn_tui.capture.session import Capture

    cap = Capture(os.environ["MASKATTN_CAPTURE_DIR"], child=True,
                  weights=bool(os.environ.get("MASKATTN_CAPTURE_WEIGHTS")))
    cap.__enter__()
    atexit.register(cap.stop)


class _WhenTorchLoads:
    """A meta-path finder that lets torch load as usual, then starts capture."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            try:
                _start()
            except Exception as exc:  # noqa: BLE001 - the child must run as it would
                sys.stderr.write(f"maskattn-tui capture: not capturing in pid {os.getpid()}: {exc}\n")

        spec.loader.exec_module = exec_module
        return spec


if os.environ.get("MASKATTN_CAPTURE_DIR") and os.path.isdir(os.environ["MASKATTN_CAPTURE_DIR"]):
    sys.meta_path.insert(0, _WhenTorchLoads())
