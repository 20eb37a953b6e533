"""A layer's intent read from what capture recorded of one Hugging Face
attention call (its `intent` record, docs/capture.md): the builder that
made its mask, the layer's type, the config fields and the module's own
flags. Plain data in: never imports torch or transformers.

The layer's declared type comes first (config.layer_types, the window the
layer passes to its attention function, module.is_causal); the builder's
name decides only what the layer leaves open. A builder that added an
overlay of its own (or_mask_function, and_mask_function, packed sequences,
block ids) follows a rule no config field states: no intent then."""

from __future__ import annotations

import numpy as np

from maskattn_tui.intent.table import LayerIntent

_BIDIRECTIONAL_BUILDERS = ("create_bidirectional_mask", "create_bidirectional_sliding_window_mask")
#: layer types that take no attention mask, and those this reading knows
_NO_MASK = ("linear_attention", "conv", "mamba", "moe", "sparse", "dense")


def _positive(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def layer_intent(record: dict) -> tuple[LayerIntent | None, str]:
    """(the intent, "") or (None, why none can be derived: a reason key of
    the strings capture.intent.unknown.*)."""
    if record.get("overlays"):
        return None, "overlay"
    config = record.get("config") if isinstance(record.get("config"), dict) else {}
    module = record.get("module") if isinstance(record.get("module"), dict) else {}
    builder = record.get("builder") if isinstance(record.get("builder"), str) else None
    built = builder or ""  # (sources are code words, the same in every language)
    if record.get("cross"):
        why = "module.is_decoder = True, module.is_causal = False"
        return LayerIntent("cross", source=", ".join(s for s in (why, built) if s)), ""
    layer_type = record.get("layer_type") if isinstance(record.get("layer_type"), str) else None
    if layer_type in _NO_MASK:
        return None, "no_mask"
    bidirectional = builder in _BIDIRECTIONAL_BUILDERS or module.get("is_causal") is False \
        or config.get("is_causal") is False
    where = f"config.layer_types[{record.get('layer')}] = {layer_type}" if layer_type else ""
    window = _positive(record.get("sliding_window")) or _positive(module.get("sliding_window"))
    if layer_type == "sliding_attention" or (layer_type is None and window is not None) or \
            (layer_type is None and builder in ("create_sliding_window_causal_mask",
                                                "create_bidirectional_sliding_window_mask")):
        if bidirectional:
            if builder != "create_bidirectional_sliding_window_mask":
                return None, "bidirectional_window"  # whose width the config states differently by model
            # the builder's own width (|q - k| <= config.sliding_window); a layer's kernel argument may
            # count otherwise (ModernBERT passes local_attention // 2 + 1)
            window = _positive(config.get("sliding_window"))
            if window is None:
                return None, "no_window"
            return LayerIntent("bidirectional_sliding", window=window, source=", ".join(
                s for s in (where, f"config.sliding_window = {window}", built) if s)), ""
        window = window or _positive(config.get("sliding_window"))
        if window is None:
            return None, "no_window"
        source = ", ".join(s for s in (where, f"sliding_window = {window}", built) if s)
        return LayerIntent("sliding", window=window, source=source), ""
    if layer_type == "chunked_attention" or (layer_type is None and builder == "create_chunked_causal_mask"):
        chunk = _positive(config.get("attention_chunk_size"))
        if chunk is None or bidirectional:
            return None, "no_chunk"
        return LayerIntent("chunked", chunk=chunk, source=", ".join(
            s for s in (where, f"attention_chunk_size = {chunk}", built) if s)), ""
    if layer_type not in (None, "full_attention"):
        return None, "layer_type"
    if bidirectional:
        why = "module.is_causal = False" if module.get("is_causal") is False else \
            "config.is_causal = False" if config.get("is_causal") is False else ""
        return LayerIntent("bidirectional", source=", ".join(s for s in (where, why, built) if s)), ""
    if module.get("is_causal") is None and builder is None:
        return None, "no_rule"  # neither the module nor a builder says what the layer is
    why = "module.is_causal = True" if module.get("is_causal") else ""
    return LayerIntent("causal", source=", ".join(s for s in (where, why, built) if s)), ""


def padding_at(row, k_pos) -> tuple[np.ndarray, int]:
    """One batch row of a 2-D attention_mask (True / 1 = real token) read at
    each key slot's absolute position: (valid per slot, the left PAD count).
    A position beyond the mask's end is PAD and an unused slot (-1) is not
    valid, as transformers pads the 2-D mask with False (prepare_padding_mask)."""
    row = np.asarray(row).astype(bool).reshape(-1)
    k_pos = np.asarray(k_pos, dtype=np.int64)
    inside = (k_pos >= 0) & (k_pos < row.size)
    valid = np.where(inside, row[np.clip(k_pos, 0, max(row.size - 1, 0))], False)
    return valid, int(np.argmax(row)) if row.any() else row.size
