"""Naming a call: the module it ran in (global forward hooks), the nearest
frames of library and user code, and which forward and generation step it
belongs to. The hooks do nothing while torch.compile traces (dynamo cannot
trace them); what they keep of a module call (the module, the frame
below its forward) is dropped when it returns, and the module paths are
kept by id, the roots by weak reference."""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
import weakref

import torch

_TORCH = os.path.dirname(torch.__file__) + os.sep
_compiling = torch.compiler.is_compiling
_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_LIBRARIES = tuple({os.path.realpath(p) + os.sep for p in
                    (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"],
                     sysconfig.get_paths()["stdlib"])} | {sysconfig.get_paths()["stdlib"] + os.sep})
#: code object -> (shown name, is torch or capture, is library)
_KINDS: dict = {}
#: the folder the latest capture started in: paths stay relative to it when the script calls os.chdir
_CWD = os.getcwd()


def _kind(code) -> tuple[str, bool, bool]:
    kind = _KINDS.get(code)
    if kind is None:
        path = code.co_filename
        real = os.path.realpath(path) if path and not path.startswith("<") else path
        ours = real.startswith(_TORCH) or real.startswith(_HERE) or path.startswith(("<frozen", "<eval_with_key>"))
        library = ours or real.startswith(_LIBRARIES) or path.startswith("<")
        shown = path
        for root in _LIBRARIES:
            if real.startswith(root):
                shown = real[len(root):]
                break
        else:
            shown = os.path.basename(path) if library else os.path.relpath(real, _CWD) if real.startswith(_CWD) \
                else real
        kind = _KINDS[code] = (shown, ours, library)
    return kind


def _walk(frame, stop=None, above=None) -> tuple[str | None, str | None]:
    """From `frame` up: the nearest frame outside torch and this package
    (modeling_llama.py:258) and the nearest one outside any installed
    library (the user's script). At `stop`, a frame whose answer is known,
    `above()` gives the rest (inside a module's forward, the frames above
    the outermost module's call are the same for every call: walked once)."""
    near = user = None
    kinds = _KINDS
    while frame is not None and user is None:
        if frame is stop:
            known_near, user = above()
            return near or known_near, user
        code = frame.f_code
        shown, ours, library = kinds.get(code) or _kind(code)
        if not ours:
            here = f"{shown}:{frame.f_lineno}"
            near = near or here
            if not library:
                user = here
        frame = frame.f_back
    return near, user


def _above(stack: list, level: int) -> tuple[str | None, str | None]:
    """(near, user) of the frames above the hook frame of stack[level]'s
    module call, walked once per module call (they do not change while it
    runs)."""
    if stack[level][3] is None:
        # from the nearest level out whose walk is known, each level in (a loop: no recursion per level)
        known = level
        while known > 0 and stack[known - 1][3] is None:
            known -= 1
        for inner in range(known, level + 1):
            outer = stack[inner - 1] if inner else None
            stack[inner][3] = _walk(stack[inner][2]) if outer is None else \
                _walk(stack[inner][2], outer[2], lambda known=outer[3]: known)
    return stack[level][3]


def _inside(model, module) -> bool:
    return any(sub is module for sub in model.modules())


class Sites:
    """The module stack of each thread, the forward counter and the
    generation step, kept by global forward pre- and post-hooks."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.forward = -1
        self._names: dict[int, str] = {}
        self._roots: dict[int, weakref.ref] = {}
        self._generate = None  # the frame of the generate() call being followed
        self._step = -1
        self._model_ran = False  # the generating model's own forward has run in this generate()
        self._handles: list = []
        #: called at every outermost forward (capture installs transformers' hooks then, if it can)
        self.on_root = None
        #: told of every module's start and end (torch_modules.ModuleCalls)
        self.modules = None

    def install(self) -> None:
        global _CWD
        if os.getcwd() != _CWD:
            _CWD = os.getcwd()
            _KINDS.clear()
        from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

        self._handles = [register_module_forward_pre_hook(self._enter),
                         register_module_forward_hook(self._leave, with_kwargs=True, always_call=True)]

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._generate = None

    def _stack(self) -> list:
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
        return stack

    # The two hooks run for every module call of the run: kept lean.
    def _enter(self, module, args) -> None:
        if _compiling():
            return
        try:
            stack = self.local.stack
        except AttributeError:
            stack = self._stack()
        if not stack:
            self._root(module)
        # the frame calling this hook (torch's, which then calls forward) stays below every frame of the
        # module's call: a record inside walks up to it, and what lies above it is walked once per module
        # call ([2], filled by frames()); the module is named only when a call is recorded (most never are)
        stack.append([id(module), module, sys._getframe(1), None])
        self.modules.enter(module)

    def _leave(self, module, args, kwargs, output) -> None:
        if _compiling():
            return
        try:
            stack = self.local.stack
        except AttributeError:
            stack = self._stack()
        key = id(module)
        # told while this module is still the innermost (its own record is named by it)
        self.modules.leave(module, args, kwargs, root=len(stack) == 1 and stack[0][0] == key)
        while stack:
            if stack.pop()[0] == key:
                break

    def _root(self, module) -> None:
        """A forward with no module around it: a new forward (and, inside
        generate(), its next step). Paths are named from the outermost model
        known: inside generate() that is the model generating, so its
        encoder, run alone first, is still `model.encoder.layers.0.self_attn`."""
        self.forward += 1
        if self.on_root is not None:
            self.on_root()
        frame = sys._getframe(2)
        while frame is not None:
            code = frame.f_code
            if code.co_name == "generate" and "generation" in code.co_filename:
                break
            frame = frame.f_back
        model = frame.f_locals.get("self") if frame is not None else None
        owner = model if isinstance(model, torch.nn.Module) and (model is module or _inside(model, module)) \
            else module
        ref = self._roots.get(id(owner))
        if ref is None or ref() is not owner:
            for name, sub in owner.named_modules():
                self._names[id(sub)] = name or type(owner).__name__
            self._roots[id(owner)] = weakref.ref(owner)
        if frame is None:
            self._generate, self._step = None, -1
            return
        if frame is not self._generate:
            self._generate, self._step, self._model_ran = frame, 0, False
        # the step moves on with each forward of the model itself (an encoder run first is the prefill's)
        if module is owner:
            if self._model_ran:
                self._step += 1
            self._model_ran = True

    def frames(self, depth: int) -> tuple[str | None, str | None]:
        """_walk from the caller's `depth`-th frame up to the innermost
        module's hook frame; the frames above each module's call are walked
        once per module call (up to the next module out, and so on), so the
        calls of one layer, or of one forward, share their walks."""
        stack = getattr(self.local, "stack", None)
        if not stack:
            return _walk(sys._getframe(depth + 1))
        return _walk(sys._getframe(depth + 1), stack[-1][2], lambda: _above(stack, len(stack) - 1))

    def where(self) -> dict:
        """The innermost module of this thread, its layer index, the
        forward and the generation step (None outside generate)."""
        stack = self._stack()
        site = (self._names.get(stack[-1][0]) or type(stack[-1][1]).__name__) if stack else None
        # layer_idx is a plain attribute (vars(), not getattr: nn.Module's __getattr__ raises when it is absent)
        layer = next((vars(entry[1]).get("layer_idx") for entry in reversed(stack)
                      if vars(entry[1]).get("layer_idx") is not None), None)
        return {"site": site, "layer": layer if isinstance(layer, int) else None,
                "forward": self.forward if stack else None,
                "generate_step": self._step if stack and self._generate is not None else None}
