"""nn.MultiheadAttention and the Transformer encoder, recorded from their
module hooks rather than by the mode. While a TorchFunctionMode is on,
these modules leave their fast paths (they test has_torch_function), which
changes results in the last bits; so capture takes its mode off the stack
for the duration of such a module's forward (the fast path runs as without
capture) and records the call from the module's own arguments after it:
attn_mask, key_padding_mask and their merge, as the mode records
F.multi_head_attention_forward. An encoder layer whose fast path skipped
its self_attn module is recorded itself; inside an encoder that packed the
batch into a nested tensor, with the encoder's masks."""

from __future__ import annotations

import threading

import torch

from maskattn_tui.capture import tables

_FAST = (torch.nn.MultiheadAttention, torch.nn.TransformerEncoderLayer, torch.nn.TransformerEncoder)
_MHA_NAMES = ("query", "key", "value", "key_padding_mask", "need_weights", "attn_mask", "average_attn_weights",
              "is_causal")
_LAYER_NAMES = ("src", "src_mask", "src_key_padding_mask", "is_causal")
_ENCODER_NAMES = ("src", "mask", "src_key_padding_mask", "is_causal")


def _ours() -> list:
    """Pop every capture mode on top of this thread's mode stack."""
    from maskattn_tui.capture.mode import CaptureMode

    popped = []
    while torch._C._len_torch_function_stack():
        top = torch._C._get_function_stack_at(torch._C._len_torch_function_stack() - 1)
        if not isinstance(top, CaptureMode):
            break
        popped.append(torch._C._pop_torch_function_stack())
    return popped


def _bound(names, args, kwargs) -> dict:
    return {**dict(zip(names, args)), **(kwargs or {})}


class ModuleCalls:
    def __init__(self, recorder, names: dict) -> None:
        self.recorder = recorder
        self.names = names  # id(module) -> its path (sites.Sites)
        self.local = threading.local()

    def _stack(self) -> list:
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
            self.local.mha = 0
            self.local.pending = []
        return stack

    def enter(self, module) -> None:
        if isinstance(module, _FAST):
            stack = self._stack()
            stack.append((id(module), _ours(), self.local.mha, isinstance(module, torch.nn.TransformerEncoder)))

    def leave(self, module, args, kwargs, root: bool = False) -> None:
        if root and isinstance((kwargs or {}).get("position_ids"), torch.Tensor):
            self.recorder.record("forward", _positions, (kwargs["position_ids"], kwargs.get("attention_mask")))
        if not isinstance(module, _FAST):
            return
        stack = self._stack()
        while stack and stack[-1][0] != id(module):
            stack.pop()
        if not stack:
            return
        _, popped, mha_before, _ = stack.pop()
        try:
            if isinstance(module, torch.nn.MultiheadAttention):
                self.local.mha += 1
                self.recorder.record("mha", _mha_call, (module, _bound(_MHA_NAMES, args, kwargs)))
            elif isinstance(module, torch.nn.TransformerEncoderLayer) and self.local.mha == mha_before:
                a = _bound(_LAYER_NAMES, args, kwargs)
                if getattr(a.get("src"), "is_nested", False) and any(
                        entry[3] for entry in stack):  # inside an encoder: its masks, at its end
                    self.local.pending.append(module)
                else:
                    self._layer(module, a.get("src"), a.get("src_mask"), a.get("src_key_padding_mask"),
                                a.get("is_causal"))
            elif isinstance(module, torch.nn.TransformerEncoder) and self.local.pending:
                a = _bound(_ENCODER_NAMES, args, kwargs)
                pending, self.local.pending = self.local.pending, []
                for layer in pending:
                    self._layer(layer, a.get("src"), a.get("mask"), a.get("src_key_padding_mask"), a.get("is_causal"))
        finally:
            for mode in reversed(popped):
                torch._C._push_on_torch_function_stack(mode)

    def _layer(self, layer, src, mask, padding, is_causal) -> None:
        record = self.recorder.record("mha", _layer_call, (layer, src, mask, padding, is_causal,
                                                           self.names.get(id(layer))))
        return record


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
    layer, src, mask, padding, is_causal, path = entry
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
