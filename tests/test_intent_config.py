"""intent.config against the configuration classes of transformers 5.24:
for an old-style config.json (no layer_types, the fields a hub file of that
family holds), the layer kinds and windows derived from plain JSON equal
those the class computes; with layer_types, they are read as given."""

from __future__ import annotations

import pytest
from transformers import AutoConfig

from maskattn_tui.errors import MaskattnError
from maskattn_tui.intent.config import derive, unknown_kinds

KIND = {"full_attention": "causal", "sliding_attention": "sliding", "chunked_attention": "chunked"}

OLD_STYLE = [
    ("mistral", {"num_hidden_layers": 3}),
    ("mistral", {"num_hidden_layers": 3, "sliding_window": None}),
    ("mixtral", {"num_hidden_layers": 3}),
    ("mixtral", {"num_hidden_layers": 3, "sliding_window": 5}),
    ("phi3", {"num_hidden_layers": 2, "sliding_window": 7}),
    ("starcoder2", {"num_hidden_layers": 2}),
    ("qwen2", {"num_hidden_layers": 4, "use_sliding_window": True, "sliding_window": 8, "max_window_layers": 2}),
    ("qwen2", {"num_hidden_layers": 4, "sliding_window": 8}),
    ("qwen3", {"num_hidden_layers": 5, "use_sliding_window": True, "sliding_window": 6, "max_window_layers": 1}),
    ("gemma2", {"num_hidden_layers": 5, "sliding_window": 9}),
    ("gemma3_text", {"num_hidden_layers": 7, "sliding_window_pattern": 3, "sliding_window": 10}),
    ("gemma3_text", {"num_hidden_layers": 7}),
    ("cohere2", {"num_hidden_layers": 9}),
    ("gpt_oss", {"num_hidden_layers": 4}),
    ("llama4_text", {"num_hidden_layers": 8}),
    ("llama4_text", {"num_hidden_layers": 8, "no_rope_layer_interval": 2, "attention_chunk_size": 16}),
    ("llama", {"num_hidden_layers": 3}),
]


def _class_kinds(config) -> list[tuple[str, int | None, int | None]]:
    """What the class says each layer is: (kind, window, chunk)."""
    types = getattr(config, "layer_types", None)
    if types is None:  # mistral-likes: modeling picks the sliding builder when sliding_window is set
        window = getattr(config, "sliding_window", None)
        types = ["full_attention" if window is None else "sliding_attention"] * config.num_hidden_layers
    out = []
    for k in types:
        kind = KIND[k]
        out.append((kind, getattr(config, "sliding_window", None) if kind == "sliding" else None,
                    getattr(config, "attention_chunk_size", None) if kind == "chunked" else None))
    return out


@pytest.mark.parametrize("model_type,fields", OLD_STYLE)
def test_old_style_configs_give_the_class_layers(model_type, fields):
    config = AutoConfig.for_model(model_type, **fields)
    sites = derive({"model_type": model_type, **fields})
    ours = [(s.intent.kind, s.intent.window, s.intent.chunk) for s in sites]
    want = _class_kinds(config)
    if [s.name for s in sites] == ["*"]:  # every layer alike: one site stands for them all
        assert set(want) == set(ours)
    else:
        assert ours == want


def test_layer_types_are_read_as_given_and_saved_configs_round_trip():
    config = AutoConfig.for_model("gemma3_text", num_hidden_layers=4, sliding_window=5,
                                  layer_types=["full_attention", "sliding_attention", "sliding_attention",
                                               "full_attention"])
    sites = derive(config.to_dict())
    assert [(s.intent.kind, s.intent.window, s.intent.chunk) for s in sites] == _class_kinds(config)
    assert sites[1].intent.source.startswith("config.layer_types[1]")


def test_modernbert_local_layers_are_half_the_local_attention():
    config = AutoConfig.for_model("modernbert", num_hidden_layers=7, global_attn_every_n_layers=2, local_attention=8)
    for d in (config.to_dict(), {"model_type": "modernbert", "num_hidden_layers": 7,
                                 "global_attn_every_n_layers": 2, "local_attention": 8}):
        sites = derive(d)
        assert [s.intent.kind for s in sites] == [
            "bidirectional" if k == "full_attention" else "bidirectional_sliding" for k in config.layer_types]
        assert {s.intent.window for s in sites if s.intent.window} == {config.sliding_window}


def test_gemma3_bidirectional_window_is_the_class_exclusive_bound_minus_one():
    config = AutoConfig.for_model("gemma3_text", num_hidden_layers=2, sliding_window=9,
                                  use_bidirectional_attention=True, layer_types=["sliding_attention", "full_attention"])
    sites = derive(config.to_dict())  # to_dict saves the window before halving, as a hub file holds it
    # modeling_gemma3 keeps |q - k| < config.sliding_window (the halved one)
    assert sites[0].intent.kind == "bidirectional_sliding" and sites[0].intent.window == config.sliding_window - 1
    assert sites[1].intent.kind == "bidirectional"


def test_encoder_decoder_and_bert_decoder_sites():
    for model_type in ("bart", "t5", "marian", "whisper"):
        sites = derive(AutoConfig.for_model(model_type).to_dict())
        assert [(s.name, s.intent.kind) for s in sites] == [("encoder", "bidirectional"), ("decoder", "causal"),
                                                            ("cross", "cross")]
    bert = derive(AutoConfig.for_model("bert", is_decoder=True, add_cross_attention=True).to_dict())
    assert [s.intent.kind for s in bert] == ["causal", "cross"]
    assert [s.intent.kind for s in derive(AutoConfig.for_model("bert").to_dict())] == ["bidirectional"]


def test_multimodal_configs_read_their_text_config():
    llama4 = AutoConfig.for_model("llama4", text_config={"num_hidden_layers": 4, "attention_chunk_size": 32})
    sites = derive(llama4.to_dict())
    assert [(s.intent.kind, s.intent.window, s.intent.chunk) for s in sites] == _class_kinds(llama4.text_config)


def test_layers_without_a_mask_or_a_known_rule():
    sites = derive({"model_type": "llama", "layer_types": ["full_attention", "linear_attention", "window_attention"]})
    assert [s.intent is None for s in sites] == [False, True, True]
    assert [s.name for s in unknown_kinds(sites)] == ["2"]
    uniform = derive({"model_type": "mistral", "sliding_window": 4})  # every layer sliding, however many
    assert [(s.name, s.intent.kind, s.intent.window) for s in uniform] == [("*", "sliding", 4)]
    with pytest.raises(MaskattnError):
        derive({"model_type": "gemma2"})  # alternating, but how many layers?
