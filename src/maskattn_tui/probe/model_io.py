"""How the probe talks to a model: which keyword arguments its forward
takes (transformers 5.24 renamed `past_key_values` to `cache`), what its
per-position output is (`logits`, else `last_hidden_state`, else the first
tensor), whether it is causal, which caches it can be given, which modules
are its attention layers, and switching its attention implementation.
Imported only when a probe runs (torch is imported here)."""

from __future__ import annotations

import inspect

import torch

#: transformers' attention implementations a backend case may switch to
#: (flex_attention is left out on CPU: HF compiles it and Inductor fails here).
LIBRARY_BACKENDS = ("eager", "sdpa")


class ModelIO:
    def __init__(self, model, causal: bool | None = None) -> None:
        self.model = model
        self.config = getattr(model, "config", None)
        try:
            params = inspect.signature(model.forward).parameters
        except (TypeError, ValueError):  # a builtin forward: only input_ids is sure
            params = {}
        self.any_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        self.params = set(params)
        #: the name of the cache argument: `cache` (transformers >= 5.2x) or `past_key_values`
        self.cache_name = "cache" if "cache" in self.params else \
            "past_key_values" if "past_key_values" in self.params else None
        self.causal = self._causal() if causal is None else causal

    def _causal(self) -> bool:
        config = self.config
        if config is not None and getattr(config, "is_encoder_decoder", False):
            return False
        can = getattr(self.model, "can_generate", None)
        if callable(can):
            try:
                if can():
                    return True
            except Exception:  # noqa: BLE001 - a user's model may not implement it
                pass
        if config is not None and hasattr(config, "is_decoder") and getattr(config, "model_type", None):
            # an HF model that cannot generate: a decoder only if its config says so
            return bool(config.is_decoder)
        return True  # a plain module mapping ids to outputs: probed as a language model

    def takes(self, name: str) -> bool:
        return name in self.params or self.any_kwargs

    @property
    def dtype(self) -> torch.dtype:
        for p in self.model.parameters():
            if p.is_floating_point():
                return p.dtype
        return torch.float32

    @property
    def device(self) -> torch.device:
        for p in self.model.parameters():
            return p.device
        return torch.device("cpu")

    def vocab_size(self, input_ids: torch.Tensor) -> int:
        size = getattr(self.config, "vocab_size", None)
        if not isinstance(size, int):
            embed = getattr(self.model, "get_input_embeddings", None)
            try:
                size = embed().num_embeddings if callable(embed) else None
            except Exception:  # noqa: BLE001
                size = None
        return size if isinstance(size, int) and size > 1 else int(input_ids.max()) + 2

    @property
    def pad_id(self) -> int:
        pad = getattr(self.config, "pad_token_id", None)
        return pad if isinstance(pad, int) else 0

    # --- calling it ----------------------------------------------------------
    def forward(self, input_ids, attention_mask=None, position_ids=None, cache=None, use_cache=None):
        kwargs = {"input_ids": input_ids}
        for name, value in (("attention_mask", attention_mask), ("position_ids", position_ids),
                            ("use_cache", use_cache)):
            if value is not None and self.takes(name):
                kwargs[name] = value
        if cache is not None:
            kwargs[self.cache_name] = cache
        return per_position(self.model(**kwargs))

    def head(self):
        """The output head (a transformers model's get_output_embeddings():
        its lm_head), or None."""
        get = getattr(self.model, "get_output_embeddings", None)
        try:
            head = get() if callable(get) else None
        except Exception:  # noqa: BLE001 - a user's model may not implement it
            return None
        return head if isinstance(head, torch.nn.Module) else None

    def new_cache(self, kind: str, length: int):
        """A fresh cache of this kind for this model (transformers' classes)."""
        from transformers import DynamicCache, StaticCache

        if kind == "dynamic":
            return DynamicCache(config=self.config)
        return StaticCache(config=self.config, max_cache_len=length)

    def cache_kinds(self) -> list[str]:
        """The caches this model can be given: none without a cache argument
        or a transformers config; StaticCache where the config builds one
        (tried once)."""
        if not hasattr(self, "_kinds"):
            self._kinds = self._cache_kinds()
        return self._kinds

    def _cache_kinds(self) -> list[str]:
        if self.cache_name is None or self.config is None or not hasattr(self.config, "model_type"):
            return []
        kinds = ["dynamic"]
        try:
            self.new_cache("static", 4)
            kinds.append("static")
        except Exception:  # noqa: BLE001 - a model whose config StaticCache does not support
            pass
        return kinds

    # --- backends ------------------------------------------------------------
    @property
    def backend(self) -> str | None:
        return getattr(self.config, "_attn_implementation", None)

    def can_switch(self) -> bool:
        return callable(getattr(self.model, "set_attn_implementation", None)) and self.backend is not None

    def set_backend(self, name: str) -> None:
        self.model.set_attn_implementation(name)


def per_position(output) -> torch.Tensor:
    """The per-position output of a forward: [batch, positions, features]."""
    for name in ("logits", "last_hidden_state"):
        value = getattr(output, name, None)
        if isinstance(value, torch.Tensor):
            return value
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, (tuple, list)) and output and isinstance(output[0], torch.Tensor):
        return output[0]
    if isinstance(output, dict):
        for value in output.values():
            if isinstance(value, torch.Tensor):
                return value
    raise TypeError(f"no per-position tensor in the model's output ({type(output).__name__})")


def attention_modules(model) -> list[tuple[str, object]]:
    """The attention layers, by module path in the order named_modules gives
    (layer order): the outermost module whose class name ends in
    "Attention" (LlamaAttention, GPT2Attention, BertAttention,
    nn.MultiheadAttention), not the ones inside it."""
    out: list[tuple[str, object]] = []
    for name, module in model.named_modules():
        if not name or not type(module).__name__.endswith("Attention"):
            continue
        if any(name.startswith(outer + ".") for outer, _ in out):
            continue
        out.append((name, module))
    return out
