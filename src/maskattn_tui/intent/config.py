"""Each layer's intent read from a Hugging Face config.json, as plain data
(never importing transformers, never running a model's code).

    sites = derive(json.load(open("config.json")), token_types=False)
    [(s.name, s.layer_type, s.intent) for s in sites]

The rules are transformers 5.24's: `layer_types` when the config has it
(every config saved by a recent version does), else the default the
model's configuration class computes (written out below for the families
whose default is not "every layer full", each checked against the class in
tests/test_intent_config.py). A config whose rule this module cannot know
raises MaskattnError: the doctor must say so, never pass a mask silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from maskattn_tui.errors import MaskattnError
from maskattn_tui.intent.table import LayerIntent

#: Encoders: every layer bidirectional unless `is_decoder` (BERT's LM head).
ENCODERS = frozenset({
    "bert", "roberta", "xlm-roberta", "xlm-roberta-xl", "distilbert", "electra", "albert", "camembert",
    "deberta", "deberta-v2", "mpnet", "ernie", "data2vec-text", "roberta-prelayernorm", "modernbert",
    "megatron-bert", "xlm", "flaubert", "luke", "esm", "nomic_bert", "jina_bert",
})
#: Decoders known by model_type (any other with a ...ForCausalLM architecture is one too).
DECODERS = frozenset({
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3_text",
    "cohere", "cohere2", "gpt2", "gpt_neox", "gptj", "gpt_neo", "falcon", "phi", "phi3", "opt", "bloom", "olmo",
    "olmo2", "starcoder2", "llama4_text", "gpt_oss", "doge", "smollm3", "granite", "stablelm", "mpt",
})
#: Families whose masks follow rules a config cannot state (global tokens,
#: prefix-LM by token types, hashing, custom builders): never guessed.
SPECIAL = frozenset({
    "longformer", "led", "big_bird", "bigbird_pegasus", "reformer", "longt5", "paligemma", "git", "pi0",
    "molmo2", "deepseek_ocr2", "unlimited_ocr", "diffusion_gemma", "hrm_text", "gemma4_unified",
    # text layers interleaved with cross-attention to image states: which layer is which is not layer_types
    "mllama", "mllama_text_model", "idefics",
})
#: Families whose blocks --token-type-ids describe (image tokens: type 1).
TOKEN_BLOCKS = frozenset({"gemma3"})
#: Layer types with no attention mask at all (recurrent / convolution / MLP).
NO_MASK = frozenset({"linear_attention", "conv", "moe", "mamba", "sparse", "dense"})
LEGACY = {"attention": "full_attention", "mamba": "linear_attention"}
#: Fields that make some layers local: with no layer_types and a model_type
#: not in DEFAULTS, which layers they apply to is the model code's secret.
LOCAL_FIELDS = ("sliding_window", "attention_chunk_size", "sliding_window_pattern", "local_attention",
                "attention_window", "global_attn_every_n_layers", "use_sliding_window")


@dataclass(frozen=True)
class Site:
    """One place a mask is used: a layer ("3"), or for an encoder-decoder
    "encoder", "decoder", "cross" (every layer of each alike)."""

    name: str
    layer_type: str  # the config's word for it ("sliding_attention", ...) or the site's
    intent: LayerIntent | None  # None: the layer takes no mask (layer_type says why)


def _num(cfg: dict, *names: str) -> int | None:
    for name in names:
        value = cfg.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def _pattern(n: int, every: int, start: int = 1) -> list[str]:
    """sliding except every `every`-th layer ((i + start) % every == 0: full)."""
    return ["full_attention" if (i + start) % every == 0 else "sliding_attention" for i in range(n)]


def _default_types(mt: str, cfg: dict, n: int | None) -> tuple[list[str] | None, str]:
    """The layer_types the configuration class of `mt` computes when the
    file has none, and where that was read; (None, "") when every layer is
    full (no local field); MaskattnError when this module cannot know."""
    def need_n() -> int:
        if n is None:
            raise MaskattnError("intent_no_layers", model=mt)
        return n

    def given(name: str, default):
        return cfg[name] if name in cfg else default

    if mt in ("mistral", "mixtral", "phi3", "starcoder2"):
        window = given("sliding_window", 4096 if mt == "mistral" else None)
        # every layer alike: a uniform list stands for them all when the count is not given
        return (None, "") if window is None else (["sliding_attention"] * (n or 1), "config.sliding_window")
    if mt in ("qwen2", "qwen3"):
        if not given("use_sliding_window", False) or given("sliding_window", 4096) is None:
            return None, ""
        first = given("max_window_layers", 28)
        return (["sliding_attention" if i >= first else "full_attention" for i in range(need_n())],
                "config.use_sliding_window, config.max_window_layers")
    if mt in ("gemma2", "gpt_oss"):
        return _pattern(need_n(), 2), f"{mt} default layer_types (1 in 2 full_attention)"
    if mt in ("gemma3_text", "cohere2"):
        every = given("sliding_window_pattern", 6 if mt == "gemma3_text" else 4)
        return _pattern(need_n(), every), f"config.sliding_window_pattern = {every}"
    if mt == "modernbert":
        every = given("global_attn_every_n_layers", 3)
        return _pattern(need_n(), every, start=0), f"config.global_attn_every_n_layers = {every}"
    if mt == "llama4_text":
        nope = cfg.get("no_rope_layers") or [int((i + 1) % given("no_rope_layer_interval", 4) != 0)
                                              for i in range(need_n())]
        chunked = given("attention_chunk_size", 8192) is not None
        return (["chunked_attention" if r and chunked else "full_attention" for r in nope],
                "config.no_rope_layers")
    if any(cfg.get(f) not in (None, False) for f in LOCAL_FIELDS):
        field = next(f for f in LOCAL_FIELDS if cfg.get(f) not in (None, False))
        raise MaskattnError("intent_no_layer_types", model=mt, field=field)
    return None, ""


def _window(mt: str, cfg: dict) -> int:
    window = cfg.get("local_attention", 128) // 2 if mt == "modernbert" else cfg.get(
        "sliding_window", {"mistral": 4096, "gemma2": 4096, "gemma3_text": 4096, "cohere2": 4096,
                           "qwen2": 4096, "qwen3": 4096, "gpt_oss": 128}.get(mt))
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:
        raise MaskattnError("intent_bad_field", model=mt, field="sliding_window", value=window)
    return window


def _layer_intent(kind: str, i: int, mt: str, cfg: dict, *, bidirectional: bool, blocks: bool,
                  source: str) -> LayerIntent | None:
    where = f"{source}[{i}]" if source.startswith("config.layer_types") else source
    if kind == "full_attention":
        return LayerIntent("bidirectional" if bidirectional else "causal", source=where)
    if kind == "sliding_attention":
        window = _window(mt, cfg)
        if bidirectional and mt.startswith("gemma3"):
            # Gemma 3 reads the saved window as a width and keeps |q - k| <= window // 2
            return LayerIntent("bidirectional_sliding", window=window // 2,
                               source=f"{where}, config.sliding_window // 2 (use_bidirectional_attention)")
        if bidirectional:
            field = "config.local_attention // 2" if mt == "modernbert" else "config.sliding_window"
            return LayerIntent("bidirectional_sliding", window=window, source=_both(where, field))
        # (a config without layer_types: its sliding_window alone made the layer sliding)
        return LayerIntent("sliding", window=window, source=_both(where, "config.sliding_window"),
                           window_bounds_groups=blocks)
    if kind == "chunked_attention" and not bidirectional:
        chunk = cfg.get("attention_chunk_size", 8192 if mt == "llama4_text" else None)
        if not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 1:
            raise MaskattnError("intent_bad_field", model=mt, field="attention_chunk_size", value=chunk)
        return LayerIntent("chunked", chunk=chunk, source=_both(where, "config.attention_chunk_size"))
    return None


def _text_part(cfg: dict) -> tuple[str, dict]:
    """(the outer model_type, the part holding the text layers: text_config
    for a multimodal config, else the config itself)."""
    outer = cfg.get("model_type") if isinstance(cfg.get("model_type"), str) else ""
    text = cfg.get("text_config")
    return outer, (text if isinstance(text, dict) else cfg)


def _is_decoder(mt: str, outer: str, cfg: dict, text: dict) -> bool:
    archs = [a for a in (cfg.get("architectures") or []) if isinstance(a, str)]
    return (bool(text.get("is_decoder")) or mt in DECODERS
            or any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in archs)
            or (text is not cfg and any(a.endswith("ForConditionalGeneration") for a in archs)))


def derive(cfg: object, *, token_types: bool = False) -> list[Site]:
    """Every site's intent; MaskattnError when the config says too little or
    names a family whose rule a config cannot state."""
    if not isinstance(cfg, dict):
        raise MaskattnError("intent_not_object")
    outer, text = _text_part(cfg)
    mt = text.get("model_type") if isinstance(text.get("model_type"), str) else outer
    if not mt and "layer_types" not in text and not cfg.get("architectures"):
        raise MaskattnError("intent_no_fields")
    mt = mt or "?"
    if outer in SPECIAL or mt in SPECIAL:
        raise MaskattnError("intent_special", model=outer if outer in SPECIAL else mt)
    if token_types and outer not in TOKEN_BLOCKS:
        raise MaskattnError("intent_no_token_blocks", model=outer or mt)
    if cfg.get("is_encoder_decoder"):
        if any(cfg.get(f) not in (None, False) for f in LOCAL_FIELDS) or cfg.get("layer_types"):
            raise MaskattnError("intent_special", model=mt)
        return [Site("encoder", "encoder", LayerIntent("bidirectional", source="config.is_encoder_decoder: encoder")),
                Site("decoder", "decoder", LayerIntent("causal", source="config.is_encoder_decoder: decoder")),
                Site("cross", "cross", LayerIntent("cross", source="config.is_encoder_decoder: cross"))]
    encoder = mt in ENCODERS and not text.get("is_decoder")
    if not encoder and not _is_decoder(mt, outer, cfg, text):
        raise MaskattnError("intent_unknown_model", model=mt)
    bidirectional = encoder or text.get("is_causal") is False or bool(text.get("use_bidirectional_attention"))
    if text.get("use_bidirectional_attention") and not mt.startswith("gemma3"):
        raise MaskattnError("intent_special", model=mt)
    n = _num(text, "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    raw = text.get("layer_types")
    if raw is not None:
        if not isinstance(raw, list) or not raw or not all(isinstance(k, str) for k in raw):
            raise MaskattnError("intent_bad_field", model=mt, field="layer_types", value=str(raw)[:40])
        types, source = [LEGACY.get(k, k) for k in raw], "config.layer_types"
    else:
        types, source = _default_types(mt, text, n)
    if types is None or (n is None and raw is None and len(set(types)) == 1):  # every layer alike: one site
        kind = "full_attention" if types is None else types[0]
        where = "config: no layer_types, sliding_window, attention_chunk_size" if types is None else source
        sites = [Site("*", kind, _layer_intent(kind, 0, mt, text, bidirectional=bidirectional, blocks=token_types,
                                               source=where))]
    else:
        sites = [Site(str(i), k, None if k in NO_MASK else _layer_intent(
            k, i, mt, text, bidirectional=bidirectional, blocks=token_types, source=source))
            for i, k in enumerate(types)]
    if text.get("is_decoder") and text.get("add_cross_attention"):
        sites.append(Site("cross", "cross", LayerIntent("cross", source="config.add_cross_attention")))
    return sites


def unknown_kinds(sites: list[Site]) -> list[Site]:
    """Sites with an attention layer type this module has no rule for
    (window_attention, indexed_attention, ...): not derivable."""
    return [s for s in sites if s.intent is None and s.layer_type not in NO_MASK]


def _both(where: str, field: str) -> str:
    """Where a layer's kind and its width were read, each said once."""
    return where if where == field else f"{where}, {field}"
