"""What each Hugging Face attention call was meant to see, recorded beside
what it saw: which builder made its mask (create_causal_mask & co., read
from the frames around the ALL_MASK_ATTENTION_FUNCTIONS call), the layer's
type and the config fields that decide its rule, and the absolute position
of every query and of every key slot (from the cache update that handed
the keys to this call; "unused" for a static cache's empty slots). The
doctor turns this into the intended table (capture/against_intent.py).

A cache hands back either its fixed buffer (StaticLayer and friends: slot
j holds position j while the positions fit, the last L positions once a
sliding buffer rolls) or a fresh tensor holding the most recent positions
in order (DynamicLayer: all of them; DynamicSlidingWindowLayer: the last
window). The count of positions a layer has seen is its own
get_seq_length() before the update plus the new keys. Positions are
written as runs [first, count] (first, first+1, ...; first -1: that many
unused slots), so a 4,096-slot static cache is two pairs, not a list."""

from __future__ import annotations

import functools
import sys
import threading
import weakref

import torch

from maskattn_tui.capture.encoding import encoded
from maskattn_tui.strict_json import Encoded

#: the builders of transformers.masking_utils, by what they mean
BUILDERS = ("create_causal_mask", "create_sliding_window_causal_mask", "create_chunked_causal_mask",
            "create_bidirectional_mask", "create_bidirectional_sliding_window_mask")
#: locals of a builder's frame that change its rule (an overlay the intent cannot know)
_OVERLAYS = ("or_mask_function", "and_mask_function", "packed_sequence_mask", "block_sequence_ids")
#: config fields that decide a layer's rule
CONFIG_FIELDS = ("model_type", "sliding_window", "attention_chunk_size", "use_bidirectional_attention",
                 "is_causal", "is_decoder", "is_encoder_decoder")


def _seen(layer) -> int:
    """Positions a cache layer has seen (its own count)."""
    if layer is None or not getattr(layer, "is_initialized", False):
        return 0
    try:
        return int(layer.get_seq_length())
    except Exception:  # noqa: BLE001 - a layer we do not know
        return 0


class CacheWatch:
    """Cache.update, wrapped: the last update of this thread, with the
    positions of the keys it handed back."""

    def __init__(self) -> None:
        self.local = threading.local()
        self._undo = None

    def install(self, cache_utils) -> None:
        cls = cache_utils.Cache
        original = cls.update
        watch = self

        @functools.wraps(original)
        def update(cache, key_states, value_states, layer_idx, *args, **kwargs):
            if torch.compiler.is_compiling():
                return original(cache, key_states, value_states, layer_idx, *args, **kwargs)
            layers = getattr(cache, "layers", None) or []
            before = _seen(layers[layer_idx]) if isinstance(layer_idx, int) and layer_idx < len(layers) else 0
            out = original(cache, key_states, value_states, layer_idx, *args, **kwargs)
            try:
                watch._after(cache, layer_idx, key_states, out, before)
            except Exception:  # noqa: BLE001 - capture must not break the run
                watch.local.last = None
            return out

        cls.update = update
        self._undo = lambda: setattr(cls, "update", original)

    def remove(self) -> None:
        if self._undo is not None:
            self._undo()
            self._undo = None

    def _after(self, cache, layer_idx, new, out, before: int) -> None:
        keys = out[0] if isinstance(out, tuple) else None
        if not isinstance(keys, torch.Tensor) or not isinstance(new, torch.Tensor):
            self.local.last = None
            return
        layer = cache.layers[layer_idx]
        count, total = new.shape[-2], before + new.shape[-2]
        slots = keys.shape[-2]
        if keys is getattr(layer, "keys", None) and hasattr(layer, "max_cache_len") and total <= slots:
            # its fixed buffer, not yet full: slot = position, the rest unused
            held = [[0, total]] + ([[-1, slots - total]] if slots > total else [])
        elif slots <= total:  # a fresh tensor, or a full buffer that rolled: the most recent positions, in order
            held = [[total - slots, slots]]
        else:  # more keys than positions it says it saw: a cache we do not know (the call's positions are assumed)
            self.local.last = None
            return
        self.local.last = (layer_idx, keys, {
            "cache": type(cache).__name__, "cache_layer": type(layer).__name__,
            "q_pos": [[before, count]], "k_pos": held})

    def take(self, layer_idx, key) -> dict | None:
        """The positions of the last update, if it handed `key` to this layer."""
        last = getattr(self.local, "last", None)
        if last is None or last[0] != layer_idx or last[1] is not key:
            return None
        self.local.last = None
        return last[2]


def builder_context() -> dict:
    """The create_* function around a mask builder's call, and whether it
    added an overlay of its own (then its rule is not the builder's name)."""
    frame = sys._getframe(2)
    for _ in range(12):
        if frame is None:
            break
        if frame.f_code.co_name in BUILDERS and frame.f_code.co_filename.endswith("masking_utils.py"):
            scope = frame.f_locals
            return {"builder": frame.f_code.co_name,
                    "overlays": [name for name in _OVERLAYS if scope.get(name) is not None]}
        frame = frame.f_back
    return {"builder": None, "overlays": []}


class Built:
    """Which builder record made a mask tensor (by identity), and the last
    builders of this thread that returned None (SDPA's is_causal instead)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple] = {}
        self.local = threading.local()

    def add(self, out, index: int | None, record: dict, forward: int) -> None:
        if index is None:
            return
        if isinstance(out, torch.Tensor):
            if len(self._by_id) > 256:
                self._by_id = {k: v for k, v in self._by_id.items() if v[0]() is not None}
            self._by_id[id(out)] = (weakref.ref(out), index, record)
        elif out is None:
            nones = getattr(self.local, "nones", None)
            if nones is None:
                nones = self.local.nones = []
            nones.append((forward, index, record))
            del nones[:-8]

    def of(self, mask, q_len: int, forward: int, module=None) -> tuple[int | None, dict | None]:
        if isinstance(mask, torch.Tensor):
            found = self._by_id.get(id(mask))
            if found is not None and found[0]() is mask:
                return found[1], found[2]
            return None, None
        # no mask: the latest builder of this forward (or just before it) that returned None, a sliding
        # one for a sliding layer and another for any other when both did (Gemma 3 builds both)
        nones = reversed(getattr(self.local, "nones", None) or [])
        candidates = [(index, record) for built_in, index, record in nones
                      if built_in in (forward, forward - 1) and record.get("q_len") == q_len]
        sliding = _is_sliding(module)
        for index, record in candidates:
            if ("sliding" in (record.get("builder") or "")) == sliding:
                return index, record
        return candidates[0] if candidates else (None, None)


def _is_sliding(module) -> bool:
    kind = layer_type(module)
    if kind is not None:
        return kind == "sliding_attention"
    return bool(attr(module, "is_sliding") or attr(module, "sliding_window"))


def _plain(value):
    return value if isinstance(value, (bool, int, float, str)) or value is None else None


_ABSENT = object()


def attr(obj, name: str):
    """getattr(obj, name, None), the instance's own dict first: an absent
    attribute costs nn.Module's __getattr__ and an AttributeError (microseconds,
    at every layer of every step) that the dict lookup does not."""
    try:  # (object's own lookup: a transformers config overrides __getattribute__, in Python)
        found = _object_attribute(obj, "__dict__").get(name, _ABSENT)
    except (AttributeError, TypeError):
        found = _ABSENT
    return getattr(obj, name, None) if found is _ABSENT else found


_object_attribute = object.__getattribute__


def layer_type(module) -> str | None:
    """config.layer_types[module.layer_idx], if both are there."""
    types, index = attr(attr(module, "config"), "layer_types"), attr(module, "layer_idx")
    if types and isinstance(index, int) and index < len(types):
        return str(types[index])
    return None


class Facts:
    """What an HF attention module and its config say of its rule (its
    flags, its layer's type, the config's CONFIG_FIELDS), read once per
    module per `epoch` (a generate() call, or a forward outside one): a
    transformers config's attribute lookup costs microseconds each, and
    every layer of every step would read them again. `of` gives
    (module_is_causal, layer_type, layer, cross, the intent's Encoded
    config and module parts)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple] = {}

    def of(self, module, epoch) -> tuple:
        known = self._by_id.get(id(module))
        if known is not None and known[0] == epoch and known[1]() is module:
            return known[2]
        config = attr(module, "config")
        index = attr(module, "layer_idx")
        own = {"is_causal": _plain(attr(module, "is_causal")), "is_decoder": _plain(attr(module, "is_decoder")),
               "is_sliding": _plain(attr(module, "is_sliding")),
               "sliding_window": _plain(attr(module, "sliding_window"))}
        fields = {name: _plain(getattr(config, name, None)) for name in CONFIG_FIELDS}
        facts = (attr(module, "is_causal"), layer_type(module), index if isinstance(index, int) else None,
                 bool(own["is_decoder"]) and own["is_causal"] is False,  # a decoder's cross-attention
                 {"config": encoded(fields), "module": encoded(own)})
        try:
            ref = weakref.ref(module)
        except TypeError:
            return facts
        if len(self._by_id) > 1024:
            self._by_id.clear()
        self._by_id[id(module)] = (epoch, ref, facts)
        return facts


def call_intent(facts: tuple, query, key, kwargs: dict, positions: dict | None, builder: tuple) -> Encoded:
    """The `intent` record of one HF attention call (docs/capture.md), of
    its module's Facts."""
    _, kind, index, cross, parts = facts
    rows, slots = query.shape[-2], key.shape[-2]
    if cross:  # its keys are the encoder's tokens
        where = {"positions": "encoder", "q_pos": None, "k_pos": [[0, slots]],
                 **{k: v for k, v in (positions or {}).items() if k in ("cache", "cache_layer")}}
    elif positions is not None and sum(c for _, c in positions["q_pos"]) == rows:
        where = {"positions": "cache", **positions}
    elif rows == slots:
        where = {"positions": "no-cache", "q_pos": [[0, rows]], "k_pos": [[0, slots]]}
    else:  # keys we did not see go in: the queries taken as the last ones (bottom-right)
        where = {"positions": "assumed", "q_pos": [[max(slots - rows, 0), rows]], "k_pos": [[0, slots]]}
    index_of, record = builder
    window = kwargs.get("sliding_window")
    return encoded({"builder": (record or {}).get("builder"), "builder_call": index_of,
                    "overlays": (record or {}).get("overlays", []), "layer": index, "layer_type": kind,
                    "cross": cross,
                    "sliding_window": window if isinstance(window, int) and not isinstance(window, bool) else None,
                    **where}, parts)
