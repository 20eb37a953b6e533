"""Naming a call: the module it ran in, the nearest frames of library and
user code, and which forward and generation step it belongs to.

Nothing runs at a module call that records nothing. A recorded call walks
its own frames: each module call has a frame of `Module._call_impl` whose
`self` is the module, so the innermost such frame names the call, the
nearest one with a `layer_idx` gives the layer, and the outermost is the
root of the forward. A root gets hooks of its own (forward pre- and
post-hooks on that module only) the first time a call inside it is
recorded: they mark each later outermost call of it, so a record walks
only up to its root's frame and what lies above it (the user's frame, the
generate() around it) is read once per forward. Global module hooks, or a
replaced `Module.__call__`, would make every module call of the run pay
(1.10x on a tiny generate() with global hooks that do nothing, 1.11x with a
dispatcher that does nothing). Module paths are kept by id, roots by weak
reference, and no frame is kept once its call has returned."""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
import weakref

import torch

_TORCH = os.path.dirname(torch.__file__) + os.sep
_compiling = torch.compiler.is_compiling
_CALL = torch.nn.Module._call_impl.__code__
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


def near_frame(frame) -> str | None:
    """The nearest frame outside torch and this package (modeling_llama.py:258)."""
    while frame is not None:
        code = frame.f_code
        shown, ours, _ = _KINDS.get(code) or _kind(code)
        if not ours:
            return f"{shown}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def _walk(frame, top=None, nested_stops: bool = False, modules: bool = True) -> tuple:
    """From `frame` up: (the nearest library frame, the nearest user frame,
    the innermost module called, the nearest layer_idx, the outermost
    module call's frame, the frame the walk stopped at or None). It stops
    at `top`'s frame (a root call marked by its pre-hook: what lies above
    is known), or with `nested_stops` at the first module call of all.
    modules=False: the module calls on the way are not read (the caller
    knows its module; a frame's locals cost microseconds each)."""
    top_frame = top.frame if top is not None else -1
    near = user = inner = layer = outer = None
    kinds = _KINDS
    while frame is not None:
        code = frame.f_code
        if code is _CALL:
            if nested_stops:
                return near, user, None, None, frame, frame
            outer = frame
            # (a frame id is reused once its call is over: the module says whether it is that call)
            if id(frame) == top_frame and frame.f_locals.get("self") is top.module:
                return near, user, inner if inner is not None else top.module, layer, outer, frame
            if modules and (inner is None or layer is None):
                module = frame.f_locals.get("self")
                if inner is None:
                    inner = module
                if layer is None:
                    layer = vars(module).get("layer_idx")  # (nn.Module's __getattr__ raises when absent)
                    layer = layer if isinstance(layer, int) else None
        elif user is None:
            shown, ours, library = kinds.get(code) or _kind(code)
            if not ours:
                here = f"{shown}:{frame.f_lineno}"
                near = near or here
                if not library:
                    user = here
        frame = frame.f_back
    return near, user, inner, layer, outer, None


def _above(frame) -> tuple[str | None, str | None, bool]:
    """From `frame` (the one calling a root module) up: the nearest library
    frame, the nearest user frame, and whether a module call lies above
    (then this is no root call)."""
    near, user, _, _, _, stopped = _walk(frame, nested_stops=True)
    return near, user, stopped is not None


def _inside(model, module) -> bool:
    return any(sub is module for sub in model.modules())


class _Root:
    """One outermost call of a module (a forward): its frame (by id, while
    the call runs), what lies above it, and its forward number and step."""

    __slots__ = ("frame", "module", "near", "user", "forward", "step", "hooked")

    def __init__(self, frame, module, near, user, forward, step, hooked) -> None:
        self.frame, self.module, self.near, self.user, self.forward, self.step = \
            id(frame), module, near, user, forward, step
        self.hooked = hooked  # its end is followed (post-hook): its records may wait for it


class Sites:
    """The forward counter, the generation step and the module paths; the
    root hooks; the walk that names a recorded call."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.forward = -1
        self._names: dict[int, str] = {}
        self._roots: dict[int, weakref.ref] = {}
        self._hooked: dict[int, tuple] = {}  # id(root module) -> (weakref, hook handles)
        self._generation = None  # (serial, model) of the generate() call being followed
        self._step = -1
        self._model_ran = False  # the generating model's own forward has run in this generate()
        self._on = False
        self._above_roots: dict = {}  # (generate() serial, caller frame) -> what lies above a root's call
        #: called at every new forward (capture installs transformers' hooks then, if it can)
        self.on_root = None
        #: the generate() call this thread is inside, as (serial, model), or None (hf.py follows generate)
        self.generating = lambda: None
        #: records a root call's position_ids (torch_modules.ModuleCalls.forward_record)
        self.on_forward = None
        #: called when a followed forward ends (the recorder writes its lines)
        self.on_end = None

    def install(self) -> None:
        global _CWD
        if os.getcwd() != _CWD:
            _CWD = os.getcwd()
            _KINDS.clear()
        self._on = True

    def remove(self) -> None:
        self._on = False
        for ref, handles in self._hooked.values():
            for handle in handles:
                handle.remove()
        self._hooked = {}
        self._generation = None
        self.local = threading.local()

    # --- roots ------------------------------------------------------------
    def _hook(self, module) -> None:
        key = id(module)
        known = self._hooked.get(key)
        if known is not None and known[0]() is module:
            return
        try:
            handles = (module.register_forward_pre_hook(self._pre, with_kwargs=True),
                       module.register_forward_hook(self._post, always_call=True))
            self._hooked[key] = (weakref.ref(module), handles)
        except (AttributeError, TypeError, RuntimeError):  # a module that takes no hooks: walked each time
            pass

    def _pre(self, module, args, kwargs) -> None:
        if not self._on or _compiling():
            return
        frame = _call_frame(sys._getframe(1))
        if frame is None:
            return
        caller, generating = frame.f_back, self.generating()
        anchor = caller  # the nearest frame above outside torch (Module._wrapped_call_impl is new every call)
        while anchor is not None and anchor.f_code is not _CALL and (_KINDS.get(anchor.f_code)
                                                                      or _kind(anchor.f_code))[1]:
            anchor = anchor.f_back
        if generating is not None and anchor is not None:
            # inside one generate() the frames above its model calls are the same at every step (the
            # anchor's frame, generate()'s own, lives as long as the generate() call: its id is this call's)
            key = (generating[0], id(anchor), anchor.f_code, anchor.f_lasti)
            known = self._above_roots.get(key)
            if known is None:
                if len(self._above_roots) > 64:
                    self._above_roots.clear()
                known = self._above_roots[key] = _above(caller)
            near, user, nested = known
        else:
            near, user, nested = _above(caller)
        if nested:  # called inside another module (an encoder inside its model): not a forward of its own
            return
        self._begin(module, frame, near, user, kwargs, hooked=True)

    def _post(self, module, args, output) -> None:
        top = getattr(self.local, "top", None)
        if top is not None and top.module is module:
            frame = _call_frame(sys._getframe(1))
            if frame is not None and id(frame) == top.frame:
                self.local.top = None
                if self.on_end is not None:
                    self.on_end()

    def in_forward(self) -> bool:
        """Inside a forward of this thread whose end is followed."""
        top = getattr(self.local, "top", None)
        return top is not None and top.hooked

    def _begin(self, module, frame, near, user, kwargs, hooked: bool = False) -> _Root:
        """A new forward: module called from outside any module."""
        self.forward += 1
        if self.on_root is not None:
            self.on_root()
        generating = self.generating()
        model = generating[1] if generating is not None else None
        owner = model if isinstance(model, torch.nn.Module) and (model is module or _inside(model, module)) \
            else module
        ref = self._roots.get(id(owner))
        if ref is None or ref() is not owner:
            for name, sub in owner.named_modules():
                self._names[id(sub)] = name or type(owner).__name__
            self._roots[id(owner)] = weakref.ref(owner)
        step = None
        if generating is not None:
            if self._generation is None or self._generation[0] != generating[0]:
                self._generation, self._step, self._model_ran = (generating[0], None), 0, False
            # the step moves on with each forward of the model itself (an encoder run first is the prefill's)
            if module is owner:
                if self._model_ran:
                    self._step += 1
                self._model_ran = True
            step = self._step
        top = self.local.top = _Root(frame, module, near, user, self.forward, step, hooked)
        self._hook(module)
        if self.on_forward is not None and isinstance(kwargs, dict):
            self.on_forward(kwargs, {"site": self._names.get(id(module)) or type(module).__name__,
                                     "layer": None, "forward": top.forward, "generate_step": step,
                                     "frame": near, "user_frame": user})
        return top

    # --- naming a call ------------------------------------------------------
    def locate(self, depth: int, within: dict | None = None) -> dict:
        """site, layer, forward, generate_step, frame and user_frame of the
        call `depth` frames above the caller; `within`: those of the HF
        call this one runs inside (only the nearest frame is its own)."""
        frame = sys._getframe(depth + 1)
        if within is not None:
            return {**within, "frame": near_frame(frame)}
        top = getattr(self.local, "top", None)
        near, user, inner, layer, outer, stopped = _walk(frame, top)
        if outer is None:  # outside any module
            return {"site": None, "layer": None, "forward": None, "generate_step": None, "frame": near,
                    "user_frame": user}
        if stopped is None:  # walked to the top: this forward's root was not marked yet
            root = outer.f_locals.get("self")
            kwargs = outer.f_locals.get("kwargs")
            above_near, above_user, _ = _above(outer.f_back)
            top = self._begin(root, outer, above_near, above_user, kwargs)
            if root is inner and layer is None:
                layer = vars(root).get("layer_idx")
        elif layer is None:
            layer = vars(top.module).get("layer_idx")
        site = self._names.get(id(inner)) or type(inner).__name__
        return {"site": site, "layer": layer if isinstance(layer, int) else None, "forward": top.forward,
                "generate_step": top.step, "frame": near or top.near, "user_frame": user or top.user}

    def locate_module(self, module, depth: int) -> dict:
        """locate() for a call made with its module in hand (an HF attention
        call is given its attention module): the site is that module's path
        and the layer its layer_idx, so only the code of the frames up to
        the root is read, and no module frame's locals but the root's (they
        cost microseconds each inside a decode step). locate() itself when the
        root's end is not followed, the module has no path or no layer_idx,
        or the root is not above."""
        top = getattr(self.local, "top", None)
        site = self._names.get(id(module))
        layer = vars(module).get("layer_idx") if site is not None else None
        if top is None or not top.hooked or not isinstance(layer, int):
            return self.locate(depth + 1)
        near, user, _, _, _, stopped = _walk(sys._getframe(depth + 1), top, modules=False)
        if stopped is None:
            return self.locate(depth + 1)
        return {"site": site, "layer": layer, "forward": top.forward, "generate_step": top.step,
                "frame": near or top.near, "user_frame": user or top.user}


def _call_frame(frame):
    """The Module._call_impl frame a hook runs in (it calls the hook
    directly, or through its inner())."""
    for _ in range(4):
        if frame is None or frame.f_code is _CALL:
            return frame
        frame = frame.f_back
    return None
