"""Hugging Face attention, seen through transformers' own registries: the
callable `AttentionInterface.get_interface` returns (eager, sdpa, flex or
a custom implementation: every layer's attention_mask, sliding_window and
softcap) and the mask builders of ALL_MASK_ATTENTION_FUNCTIONS (q/kv
offsets and the padding mask the 4-D mask was built from). Both are put
back as they were when capture ends. Without transformers: nothing."""

from __future__ import annotations

import functools
import itertools
import sys
import threading

import torch

from maskattn_tui.capture import tables, weights
from maskattn_tui.capture.after_import import AfterImport
from maskattn_tui.capture.hf_intent import Built, CacheWatch, Facts, attr, builder_context, call_intent, layer_type


def _transformers(loading: bool = False):
    """transformers, only once the user's program has imported it: capture
    never makes a torch-only script import it (install() runs again when
    transformers.modeling_utils has been imported: see after_import.py).
    `loading`: called as modeling_utils has just run, still marked as
    being imported."""
    loaded = sys.modules.get("transformers.modeling_utils")  # (masking_utils then costs little)
    if loaded is None or (not loading and getattr(getattr(loaded, "__spec__", None), "_initializing", False)):
        return None  # not imported, or still being imported
    try:
        from transformers import cache_utils, masking_utils, modeling_utils
    except ImportError:
        return None
    return modeling_utils, masking_utils, cache_utils


_ARGUMENTS = ("module", "query", "key", "value", "attention_mask")


class HfHooks:
    def __init__(self, recorder, modules=None) -> None:
        self.recorder = recorder
        self.modules = modules  # torch_modules.ModuleCalls: watches the attention classes that bypass
        self._undo: list = []
        self._wrapped: dict = {}
        #: the intent side (hf_intent.py): cache positions, which builder made a mask
        self.caches = CacheWatch()
        self.built = Built()
        self.facts = Facts()
        self._local = threading.local()
        self._serials = itertools.count()  # (next() on it is one step under the GIL: no two calls share one)
        self._finder = None

    installed = False

    def generating(self):
        """(serial, model) of the innermost generate() call of this thread, or None."""
        stack = getattr(self._local, "generating", None)
        return stack[-1] if stack else None

    def install(self, loading: bool = False) -> None:
        if self.installed:
            return
        found = _transformers(loading)
        if found is None:
            if self._finder is None:
                # once modeling_utils has run the hooks go in, before the script builds a model (its first
                # forward is seen whole); each modeling file loaded later has its attention classes watched
                self._finder = AfterImport(_transformers_module, self._imported)
                sys.meta_path.insert(0, self._finder)
            return
        self.installed = True
        modeling_utils, masking_utils, cache_utils = found
        cls = modeling_utils.AttentionInterface
        original = cls.get_interface
        hooks = self

        @functools.wraps(original)
        def get_interface(self, attn_implementation, default):
            chosen = original(self, attn_implementation, default)
            if torch.compiler.is_compiling():
                return chosen
            return hooks._attention(chosen, attn_implementation or "eager")

        cls.get_interface = get_interface
        self._undo.append(lambda: setattr(cls, "get_interface", original))
        registry = masking_utils.ALL_MASK_ATTENTION_FUNCTIONS
        for name in list(registry.keys()):
            builder = registry[name]
            had_local = name in registry._local_mapping
            registry[name] = self._builder(builder, name)
            self._undo.append(functools.partial(_put_back, registry, name, builder, had_local))
        self.caches.install(cache_utils)
        self._undo.append(self.caches.remove)
        self._follow_generate()
        for name, module in list(sys.modules.items()):
            if _modeling_file(name):
                self.watch_module(module)

    def _imported(self, name: str, module) -> None:
        try:
            if name == "transformers.modeling_utils":
                self.install(loading=True)
            else:
                self.watch_module(module)
        except Exception:  # noqa: BLE001 - capture must not break the import
            pass

    def watch_module(self, module) -> None:
        """The attention classes of a modeling module that may bypass the interface."""
        if self.modules is not None and self.installed:
            self.modules.watch_classes([v for v in vars(module).values() if isinstance(v, type)
                                        and getattr(v, "__module__", None) == module.__name__])

    def _follow_generate(self) -> None:
        """GenerationMixin.generate, wrapped: which generate() call (a serial
        number, and the model) a forward belongs to, with no frame kept."""
        try:
            from transformers.generation.utils import GenerationMixin
        except ImportError:
            return
        original = vars(GenerationMixin).get("generate")
        if original is None:
            return
        hooks = self

        @functools.wraps(original)
        def generate(model, *args, **kwargs):
            local = hooks._local
            stack = getattr(local, "generating", None)
            if stack is None:
                stack = local.generating = []
            stack.append((next(hooks._serials), model))
            try:
                return original(model, *args, **kwargs)
            finally:
                stack.pop()

        GenerationMixin.generate = generate
        self._undo.append(lambda: setattr(GenerationMixin, "generate", original))

    def remove(self) -> None:
        for undo in reversed(self._undo):
            undo()
        self._undo = []
        self.installed = False
        if self._finder is not None:
            if self._finder in sys.meta_path:
                sys.meta_path.remove(self._finder)
            self._finder = None


    def _attention(self, fn, implementation: str):
        key = (fn, implementation)
        wrapped = self._wrapped.get(key)
        if wrapped is None:
            recorder, hooks = self.recorder, self

            @functools.wraps(fn)
            def attention(*args, **kwargs):
                if torch.compiler.is_compiling():
                    return fn(*args, **kwargs)
                # (module, query, key, value, attention_mask, ...), positional (as every modeling file
                # calls it) or by name
                if len(args) >= 5:
                    module, query, key, _, mask = args[:5]
                else:
                    named = {**dict(zip(_ARGUMENTS, args)), **kwargs}
                    module, query, key, mask = (named.get(name) for name in ("module", "query", "key",
                                                                             "attention_mask"))
                if not isinstance(query, torch.Tensor) or not isinstance(key, torch.Tensor):
                    return fn(*args, **kwargs)  # not the signature we know: run it, record nothing
                try:
                    generating = hooks.generating()
                    forward = recorder.sites.forward
                    # (a module's flags and config are read once a generate() call, or once a forward)
                    facts = hooks.facts.of(module, generating[0] if generating is not None else (forward,))
                    intent = (facts, hooks.caches.take(attr(module, "layer_idx"), key),
                              hooks.built.of(mask, query.shape[-2], forward, module))
                except Exception as exc:  # noqa: BLE001 - capture must not break the run
                    intent = exc
                entry = (module, query, key, mask, implementation, kwargs, recorder.qk, intent)
                index = recorder.record("hf", _hf_call, entry,
                                        module=module if isinstance(module, torch.nn.Module) else None)
                with recorder.within(index, query.shape[-2]):
                    return fn(*args, **kwargs)

            wrapped = self._wrapped[key] = attention
        return wrapped

    def _builder(self, fn, name: str):
        recorder, built = self.recorder, self.built

        @functools.wraps(fn)
        def build(*args, **kwargs):
            out = fn(*args, **kwargs)
            if not torch.compiler.is_compiling():
                try:
                    context = builder_context()
                except Exception:  # noqa: BLE001 - capture must not break the run
                    context = {"builder": None, "overlays": []}
                index = recorder.record("hf-mask", _hf_mask, (name, kwargs, out, context))
                try:
                    built.add(out, index, {**context, "q_len": kwargs.get("q_length")}, recorder.sites.forward)
                except Exception:  # noqa: BLE001
                    pass
            return out
        return build


def _modeling_file(name: str) -> bool:
    return name.startswith("transformers.models.") and ".modeling_" in name


def _transformers_module(name: str) -> bool:
    """transformers.modeling_utils, and each modeling file of a model."""
    return name == "transformers.modeling_utils" or _modeling_file(name)


def _put_back(registry, name: str, builder, had_local: bool) -> None:
    if had_local:
        registry[name] = builder
    else:
        del registry[name]


def _hf_call(entry: tuple, store) -> dict:
    module, query, key, mask, implementation, kwargs, qk, intent = entry
    rows, keys = query.shape[-2], key.shape[-2]
    window, softcap, scale = kwargs.get("sliding_window"), kwargs.get("softcap"), kwargs.get("scaling")
    facts = intent[0] if isinstance(intent, tuple) else (attr(module, "is_causal"), layer_type(module))
    out = {"implementation": implementation, "q_len": rows, "k_len": keys, "batch": query.shape[0],
           "heads": query.shape[1], "kv_heads": key.shape[1], "dtype": str(query.dtype).removeprefix("torch."),
           "sliding_window": window if isinstance(window, int) else None,
           "softcap": softcap if isinstance(softcap, (int, float)) else None,
           "scale": scale if isinstance(scale, (int, float)) else None,
           "module_is_causal": facts[0], "layer_type": facts[1]}
    if isinstance(mask, torch.Tensor):
        try:
            out["mask"] = tables.sdpa_mask(store, mask, False, rows, keys)
        except (RuntimeError, ValueError) as exc:  # a mask that does not fit the keys (torch or numpy says so; the implementation may drop it)
            out["mask"], out["mask_error"] = None, f"{tables.describe(mask)['shape']}: {exc}"[:300]
    else:
        out["mask"] = None  # the implementation decides (sdpa: is_causal; the SDPA call inside shows it)
    if qk is not None:  # --weights
        scale = out["scale"] if out["scale"] is not None else getattr(module, "scaling", None)
        out["weights"] = weights.keep(qk, query, key, scale if isinstance(scale, (int, float)) else None,
                                      out["softcap"])
    try:
        if not isinstance(intent, tuple):
            raise intent
        out["intent"] = call_intent(intent[0], query, key, kwargs, intent[1], intent[2])
    except Exception as exc:  # noqa: BLE001 - the call itself stays recorded (the doctor reads its table alone)
        out["intent"], out["intent_error"] = None, f"{type(exc).__name__}: {exc}"[:300]
    return out


def _hf_mask(entry: tuple, store) -> dict:
    name, kwargs, out, context = entry
    padding = kwargs.get("attention_mask")
    function = kwargs.get("mask_function")
    return {"implementation": name, "batch": kwargs.get("batch_size"), "q_len": kwargs.get("q_length"),
            "k_len": kwargs.get("kv_length"), "q_offset": _int(kwargs.get("q_offset")),
            "kv_offset": _int(kwargs.get("kv_offset")),
            "mask_function": getattr(function, "__qualname__", None) if function is not None else None,
            "padding_mask": None if padding is None else {**tables.describe(padding), **tables.padding_runs(padding)},
            "result": None if not isinstance(out, torch.Tensor) else tables.describe(out, values=False), **context}


def _int(value):
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return int(value)
    return value if isinstance(value, int) else None

