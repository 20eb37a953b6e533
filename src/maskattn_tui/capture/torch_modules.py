"""nn.MultiheadAttention and the Transformer encoder, recorded from their
own forward (replaced at the class while capture is on): their fast paths
never call F.multi_head_attention_forward, so each such module's call is
recorded from its own arguments after it (attn_mask, key_padding_mask and
their merge, as mode.py records F.multi_head_attention_forward), and the F
call inside, when the slow path makes one, is not recorded twice. An
encoder layer whose fast path skipped its self_attn module is recorded
itself; inside an encoder that packed the batch into a nested tensor,
with the encoder's masks. A transformers attention class that computes
attention without the attention interface (Falcon's eager path) is
recorded from the `attention_mask` its forward was given, when nothing
inside it was. Only these classes' calls pay: no hook on every module."""

from __future__ import annotations

import functools
import threading

import torch

from maskattn_tui.capture import tables

_FAST = (torch.nn.MultiheadAttention, torch.nn.TransformerEncoderLayer, torch.nn.TransformerEncoder)
_MHA_NAMES = ("query", "key", "value", "key_padding_mask", "need_weights", "attn_mask", "average_attn_weights",
              "is_causal")
_LAYER_NAMES = ("src", "src_mask", "src_key_padding_mask", "is_causal")
_ENCODER_NAMES = ("src", "mask", "src_key_padding_mask", "is_causal")


def _bound(names, args, kwargs) -> dict:
    return {**dict(zip(names, args)), **(kwargs or {})}


class ModuleCalls:
    def __init__(self, recorder, names: dict) -> None:
        self.recorder = recorder
        self.names = names  # id(module) -> its path (sites.Sites)
        self.local = threading.local()
        self._undo: dict = {}  # class -> its own forward, while replaced

    def _state(self):
        local = self.local
        if not hasattr(local, "mha"):
            local.mha, local.pending, local.encoders = 0, [], 0
        return local

    def install(self) -> None:
        for cls in _FAST:
            self._replace(cls, self._fast)

    def remove(self) -> None:
        for cls, forward in self._undo.items():
            cls.forward = forward
        self._undo = {}

    def watch_classes(self, classes) -> None:
        """Replace the forward of each transformers attention class among
        `classes` that may bypass the attention interface."""
        for cls in classes:
            if cls not in self._undo and "forward" in vars(cls) and _bypasses(cls) is not None:
                self._replace(cls, self._bypass)

    def _replace(self, cls, make) -> None:
        original = vars(cls)["forward"]
        self._undo[cls] = original
        cls.forward = make(original)

    def _bypass(self, original):
        recorder = self.recorder

        @functools.wraps(original)
        def forward(module, *args, **kwargs):
            if torch.compiler.is_compiling():
                return original(module, *args, **kwargs)
            before = recorder.recorded()
            out = original(module, *args, **kwargs)
            if recorder.recorded() == before:  # nothing inside saw its attention
                try:
                    mask = _mask_argument(module, args, kwargs)
                    if mask is not None:
                        recorder.record("hf", _argument_call, (module, args, mask))
                except Exception:  # noqa: BLE001 - a recording error must not reach the run
                    pass
            return out
        return forward

    def _fast(self, original):
        calls = self

        @functools.wraps(original)
        def forward(module, *args, **kwargs):
            if torch.compiler.is_compiling():
                return original(module, *args, **kwargs)
            return calls._around(original, module, args, kwargs)
        return forward

    def _around(self, original, module, args, kwargs):
        local, recorder = self._state(), self.recorder
        encoder = isinstance(module, torch.nn.TransformerEncoder)
        mha_before = local.mha
        recorder.hush(1)  # its F.multi_head_attention_forward is recorded from here
        local.encoders += encoder
        try:
            out = original(module, *args, **kwargs)
        finally:
            recorder.hush(-1)
            local.encoders -= encoder
        try:
            if isinstance(module, torch.nn.MultiheadAttention):
                local.mha += 1
                recorder.record("mha", _mha_call, (module, _bound(_MHA_NAMES, args, kwargs)))
            elif isinstance(module, torch.nn.TransformerEncoderLayer) and local.mha == mha_before:
                a = _bound(_LAYER_NAMES, args, kwargs)
                if getattr(a.get("src"), "is_nested", False) and local.encoders:
                    local.pending.append(module)  # inside an encoder: its masks, at its end
                else:
                    self._layer(module, a.get("src"), a.get("src_mask"), a.get("src_key_padding_mask"),
                                a.get("is_causal"))
            elif encoder and local.pending:
                a = _bound(_ENCODER_NAMES, args, kwargs)
                pending, local.pending = local.pending, []
                for layer in pending:
                    self._layer(layer, a.get("src"), a.get("mask"), a.get("src_key_padding_mask"), a.get("is_causal"))
        except Exception:  # noqa: BLE001 - a recording error must not reach the run (record() notes its own)
            pass
        return out

    def _layer(self, layer, src, mask, padding, is_causal) -> None:
        # (the path is read as the call is described: after the record's walk has named the modules)
        self.recorder.record("mha", _layer_call, (layer, src, mask, padding, is_causal, self.names))

    def forward_record(self, kwargs: dict, where: dict) -> None:
        """An outermost forward given position_ids (sites.Sites.on_forward)."""
        positions = kwargs.get("position_ids")
        # (one position a row, as in a decode step, cannot restart: nothing to record)
        if isinstance(positions, torch.Tensor) and positions.shape[-1] > 1:
            self.recorder.record("forward", _positions, (positions, kwargs.get("attention_mask")), where=where)


#: class -> the index of `attention_mask` among its forward's parameters, or
#: None when it is not a transformers attention module that takes one
_BYPASS: dict = {}


def _bypasses(cls) -> int | None:
    """A transformers attention module (its class named *Attention*) whose
    forward takes `attention_mask`: if its forward records nothing (its
    file computes attention itself, as Falcon's eager path does, instead of
    calling the attention interface), its mask argument is recorded."""
    known = _BYPASS.get(cls, False)
    if known is False:
        known = None
        if "Attention" in cls.__name__ and cls.__module__.startswith("transformers.models."):
            import inspect

            try:
                names = list(inspect.signature(cls.forward).parameters)
            except (TypeError, ValueError):
                names = []
            if "attention_mask" in names:
                known = names.index("attention_mask") - 1  # without self
        _BYPASS[cls] = known
    return known


def _mask_argument(module, args, kwargs):
    """The 3-D or 4-D `attention_mask` tensor a bypassing module was given, or None."""
    at = _BYPASS[type(module)]
    mask = (kwargs or {}).get("attention_mask", args[at] if at < len(args) else None)
    return mask if isinstance(mask, torch.Tensor) and mask.dim() in (3, 4) else None


def _argument_call(entry: tuple, store) -> dict:
    module, args, mask = entry
    hidden = args[0] if args and isinstance(args[0], torch.Tensor) and args[0].dim() == 3 else None
    rows, keys = mask.shape[-2], mask.shape[-1]
    if hidden is not None and rows == 1 and hidden.shape[1] > 1:
        rows = hidden.shape[1]  # a [B, 1, 1, K] padding mask broadcast over the queries
    config = getattr(module, "config", None)
    return {"implementation": getattr(config, "_attn_implementation", None), "via": "module argument",
            "q_len": rows, "k_len": keys, "batch": hidden.shape[0] if hidden is not None else mask.shape[0],
            "heads": getattr(module, "num_heads", None), "sliding_window": None, "softcap": None, "scale": None,
            "module_is_causal": getattr(module, "is_causal", None), "layer_type": None,
            "mask": tables.sdpa_mask(store, mask, False, rows, keys)}


def _layout(attention, query) -> tuple[int, int]:
    """(batch, length) of an nn.MultiheadAttention input."""
    if query.dim() == 2:
        return 1, query.shape[0]
    return (query.shape[0], query.shape[1]) if attention.batch_first else (query.shape[1], query.shape[0])


def _mha_call(entry: tuple, store) -> dict:
    module, a = entry
    q, k = a["query"], a["key"]
    batch, rows = _layout(module, q)
    keys = _layout(module, k)[1]
    masks = tables.mha_masks(store, a.get("attn_mask"), a.get("key_padding_mask"), batch, module.num_heads,
                             rows, keys)
    return {"q_len": rows, "k_len": keys, "batch": batch, "heads": module.num_heads,
            "dtype": str(q.dtype).removeprefix("torch."), "is_causal": bool(a.get("is_causal") or False),
            "dropout_p": float(module.dropout), "training": module.training, "via": "module",
            "mask": masks.pop("merged"), **masks}


def _layer_call(entry: tuple, store) -> dict:
    layer, src, mask, padding, is_causal, names = entry
    path = names.get(id(layer))
    attention = layer.self_attn
    if padding is not None:
        batch, rows = padding.shape[0], padding.shape[-1]
    elif src is not None and not getattr(src, "is_nested", False):
        batch, rows = _layout(attention, src)
    else:
        batch, rows = 1, mask.shape[-1]
    masks = tables.mha_masks(store, mask, padding, batch, attention.num_heads, rows, rows)
    return {"q_len": rows, "k_len": rows, "batch": batch, "heads": attention.num_heads,
            "dtype": str(attention.in_proj_weight.dtype).removeprefix("torch."), "is_causal": bool(is_causal),
            "dropout_p": float(attention.dropout), "training": layer.training, "via": "encoder fast path", "layer_path": path,
            **({"site": path} if path else {}),  # the layer's own path, also when recorded at its encoder's end
            "mask": masks.pop("merged"), **masks}


def _positions(entry, store) -> dict:
    """An outermost forward given position_ids: where they restart in each
    row (a packed batch's documents, if that is what they are), over the
    real tokens only (generate() gives PAD positions a filler value)."""
    position_ids, padding = entry
    ids = position_ids.detach().reshape(-1, position_ids.shape[-1]).cpu()
    real = None
    if isinstance(padding, dict):  # a mask per layer type, built ahead (Gemma 3's generate): any shows the PAD keys
        padding = next((m for m in padding.values() if isinstance(m, torch.Tensor) and m.dim() == 4), None)
    if isinstance(padding, torch.Tensor) and padding.dim() == 2 and padding.shape[-1] == ids.shape[-1]:
        real = padding.detach().cpu().bool().expand(ids.shape[0], -1)
    elif isinstance(padding, torch.Tensor) and padding.dim() == 4 and padding.shape[-1] >= ids.shape[-1] and \
            padding.shape[-2] == ids.shape[-1] and padding.shape[0] in (1, ids.shape[0]):
        # a 4-D mask built ahead (a static cache's generate): from an empty cache, token i is key i, and a
        # PAD token is the key no query sees
        seen = padding.detach().cpu()
        seen = seen if seen.dtype == torch.bool else seen > torch.finfo(seen.dtype).min / 2
        real = seen[..., :ids.shape[-1]].any(dim=-2).any(dim=1).expand(ids.shape[0], -1)
    rows = []
    for b, row in enumerate(ids[:64]):
        values = [int(v) for v, keep in zip(row, real[b] if real is not None else [True] * row.numel()) if keep]
        starts = [0] + [i for i in range(1, len(values)) if values[i] <= values[i - 1]]
        rows.append([e - a for a, e in zip(starts, starts[1:] + [len(values)])])
    return {"position_ids_shape": list(position_ids.shape), "documents": rows}
