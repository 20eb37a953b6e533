"""Where capture sees attention calls: F.scaled_dot_product_attention and
F.multi_head_attention_forward (module attributes, replaced while capture
is on) and the flex_attention higher-order operator (its class's
__call__, which eager flex and the graphs it compiles call at run time).
Each wrapper runs the original call first, unchanged; only then is it
recorded, so capture cannot alter a result, and a recording error is
noted in the manifest instead of raised. Only these calls pay anything:
a TorchFunctionMode (used before) sent every torch call of a run through
Python, 1.7x on a tiny generate() with a mode that does nothing. So a
name bound before capture started (`from torch.nn.functional import
scaled_dot_product_attention` run earlier in a notebook) is not seen;
under `maskattn-tui capture` capture starts before the script imports."""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F

from maskattn_tui.capture import tables, weights

_SDPA_NAMES = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")
_MHA_NAMES = ("query", "key", "value", "embed_dim_to_check", "num_heads", "in_proj_weight", "in_proj_bias",
              "bias_k", "bias_v", "add_zero_attn", "dropout_p", "out_proj_weight", "out_proj_bias", "training",
              "key_padding_mask", "need_weights", "attn_mask", "use_separate_proj_weight", "q_proj_weight",
              "k_proj_weight", "v_proj_weight", "static_k", "static_v", "average_attn_weights", "is_causal")


def _flex_class():
    try:
        return type(torch.ops.higher_order.flex_attention)
    except (AttributeError, RuntimeError):
        return None


def _bound(names: tuple, args: tuple, kwargs: dict) -> dict:
    return {**dict(zip(names, args)), **kwargs}


def _dtype(tensor) -> str:
    return str(tensor.dtype).removeprefix("torch.")


class CallPatches:
    """The wrappers of one capture; install() / remove() put them in and
    take them out (nested captures wrap each other, and each records)."""

    def __init__(self, recorder) -> None:
        self.recorder = recorder
        self._undo: list = []

    def install(self) -> None:
        self._patch(F, "scaled_dot_product_attention", self._wrap("sdpa", _SDPA_NAMES, self._sdpa))
        self._patch(F, "multi_head_attention_forward", self._wrap("mha", _MHA_NAMES, self._mha))
        flex = _flex_class()
        if flex is not None:
            self._patch(flex, "__call__", self._wrap_flex)

    def remove(self) -> None:
        for undo in reversed(self._undo):
            undo()
        self._undo = []

    def _patch(self, owner, name: str, make) -> None:
        had = name in vars(owner)
        original = getattr(owner, name)
        setattr(owner, name, make(original))
        self._undo.append(lambda: setattr(owner, name, original) if had else delattr(owner, name))

    def _wrap(self, kind: str, names: tuple, describe):
        recorder = self.recorder

        def make(original):
            @functools.wraps(original)
            def call(*args, **kwargs):
                # dynamo traces through to the original; the graph it builds is not seen
                if torch.compiler.is_compiling():
                    return original(*args, **kwargs)
                if kind == "mha":
                    with recorder.hushed():  # its own SDPA call is this one
                        out = original(*args, **kwargs)
                else:
                    out = original(*args, **kwargs)
                if not recorder.quiet():
                    recorder.record(kind, describe, _bound(names, args, kwargs))
                return out
            return call
        return make

    def _wrap_flex(self, original):
        recorder, describe = self.recorder, self._flex

        @functools.wraps(original)
        def call(op, *args, **kwargs):
            if torch.compiler.is_compiling():
                return original(op, *args, **kwargs)
            with recorder.hushed():  # the operator calls itself again as it dispatches
                out = original(op, *args, **kwargs)
            if not recorder.quiet():
                buffers = args[8] if len(args) > 8 else kwargs.get("mask_mod_other_buffers", ())
                recorder.record("flex", describe, (args[0], args[1], args[4], tuple(buffers or ())))
            return out
        return call

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
