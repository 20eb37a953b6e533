"""Running code right after a module has been imported, with no hook on
any other import: a meta-path finder that lets the modules it picks load as
usual (the rest of sys.meta_path finds them) and then calls back. Capture
starts in a Python child once torch has loaded (child/sitecustomize.py),
and puts transformers' hooks in once transformers.modeling_utils has run
(hf.py). Only the standard library is imported here: the child's
sitecustomize imports this before anything else."""

from __future__ import annotations

import sys


class AfterImport:
    """`then(name, module)` after each module for which `wanted(name)` is
    true has run its code; with `once`, the finder leaves sys.meta_path at
    the first such import."""

    def __init__(self, wanted, then, once: bool = False) -> None:
        self.wanted, self.then, self.once = wanted, then, once
        self._busy = False

    def find_spec(self, name, path=None, target=None):
        if self._busy or not self.wanted(name):
            return None
        if self.once and self in sys.meta_path:
            sys.meta_path.remove(self)
        import importlib.util

        self._busy = True  # (find_spec below asks sys.meta_path again, this finder included)
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        finally:
            self._busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        load, then = spec.loader.exec_module, self.then

        def exec_module(module):
            load(module)
            then(name, module)

        spec.loader.exec_module = exec_module
        return spec
