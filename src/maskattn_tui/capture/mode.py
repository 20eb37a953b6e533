"""The TorchFunctionMode that sees attention calls: every
F.scaled_dot_product_attention, F.multi_head_attention_forward and (in
eager mode) the flex_attention higher-order op. Everything else passes
straight through. The call runs first, unchanged; only then is it
recorded, so capture cannot alter a result, and a recording error is
noted in the manifest instead of raised."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from maskattn_tui.capture import tables, weights

_SDPA = F.scaled_dot_product_attention
_MHA = F.multi_head_attention_forward
_SDPA_NAMES = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")
_MHA_NAMES = ("query", "key", "value", "embed_dim_to_check", "num_heads", "in_proj_weight", "in_proj_bias",
              "bias_k", "bias_v", "add_zero_attn", "dropout_p", "out_proj_weight", "out_proj_bias", "training",
              "key_padding_mask", "need_weights", "attn_mask", "use_separate_proj_weight", "q_proj_weight",
              "k_proj_weight", "v_proj_weight", "static_k", "static_v", "average_attn_weights", "is_causal")


def _flex_op():
    try:
        return torch.ops.higher_order.flex_attention
    except (AttributeError, RuntimeError):
        return None


def _bound(names: tuple, args: tuple, kwargs: dict) -> dict:
    return {**dict(zip(names, args)), **kwargs}


def _dtype(tensor) -> str:
    return str(tensor.dtype).removeprefix("torch.")


class CaptureMode(TorchFunctionMode):
    def __init__(self, recorder) -> None:
        super().__init__()
        self.recorder = recorder
        self.flex = _flex_op()
        #: transformers' hooks (hf.py), installed at the first torch call after transformers is imported:
        #: generate() builds a static cache's masks before the model's first forward
        self.hf = None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        # While dynamo traces (flex_attention compiles its own wrapper even in
        # eager mode), pass through: the traced graph calls the op again when
        # it runs, and that call is seen here like any eager one.
        if torch.compiler.is_compiling():
            return func(*args, **kwargs)
        if self.hf is not None and not self.hf.installed:
            try:
                self.hf.install()
            except Exception:  # noqa: BLE001 - capture must not break the run (the next outermost forward tries again)
                self.hf = None
        out = func(*args, **kwargs)
        if func is _SDPA:
            self.recorder.record("sdpa", self._sdpa, _bound(_SDPA_NAMES, args, kwargs))
        elif func is _MHA:
            self.recorder.record("mha", self._mha, _bound(_MHA_NAMES, args, kwargs))
        elif func is self.flex and func is not None:
            buffers = args[8] if len(args) > 8 else kwargs.get("mask_mod_other_buffers", ())
            self.recorder.record("flex", self._flex, (args[0], args[1], args[4], tuple(buffers or ())))
        return out

    def _sdpa(self, a: dict, store) -> dict:
        q, k = a["query"], a["key"]
        rows, keys = q.shape[-2], k.shape[-2]
        causal = bool(a.get("is_causal", False))
        packed = None
        mask = a.get("attn_mask")
        if self.recorder.outer_q_len() == 1 and rows > 1 and (mask is None or mask.shape[-2] == 1):
            # transformers' decode packs GQA: the query axis holds n_rep heads of one query
            packed, rows = rows, 1
        out = {"q_len": rows, "packed_gqa": packed, "k_len": keys, "batch": q.shape[0] if q.dim() == 4 else 1,
                "heads": q.shape[-3] if q.dim() >= 3 else 1, "kv_heads": k.shape[-3] if k.dim() >= 3 else 1,
                "dtype": _dtype(q), "is_causal": causal, "enable_gqa": bool(a.get("enable_gqa", False)),
                "scale": a.get("scale"), "dropout_p": float(a.get("dropout_p", 0.0) or 0.0),
                "mask": tables.sdpa_mask(store, a.get("attn_mask"), causal, rows, keys)}
        # --weights: q and k, unless an HF attention call around this one keeps them
        if self.recorder.qk is not None and packed is None and self.recorder.outer_q_len() is None:
            out["weights"] = weights.keep(self.recorder.qk, q, k, a.get("scale"))
        return out

    def _mha(self, a: dict, store) -> dict:
        q, k = a["query"], a["key"]
        rows, keys = q.shape[0], k.shape[0]
        batch = q.shape[1] if q.dim() == 3 else 1
        heads = int(a["num_heads"])
        masks = tables.mha_masks(store, a.get("attn_mask"), a.get("key_padding_mask"), batch, heads, rows, keys)
        return {"q_len": rows, "k_len": keys, "batch": batch, "heads": heads, "dtype": _dtype(q),
                "is_causal": bool(a.get("is_causal", False)), "dropout_p": float(a.get("dropout_p") or 0.0),
                "training": bool(a.get("training", True)), "mask": masks.pop("merged"), **masks}

    def _flex(self, entry: tuple, store) -> dict:
        q, k, parts, buffers = entry
        rows, keys = q.shape[-2], k.shape[-2]
        batch, heads = q.shape[0], q.shape[1]
        block = tables.flex_block_mask(store, parts, buffers, batch, heads, rows, keys)
        mask = {key: block.pop(key) for key in ("from", "polarity", "batch", "heads", "hashes") if key in block}
        return {"q_len": rows, "k_len": keys, "batch": batch, "heads": heads, "dtype": _dtype(q),
                "block_mask": block, "mask": mask or None}
