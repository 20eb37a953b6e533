"""Every model's attention seen, named by its full module path: Falcon
(its modeling file computes attention itself, not through transformers'
attention interface) in eager and sdpa, the encoders of T5, BART and
Whisper run first inside generate(), a plain forward after generate(), a
TransformerEncoder on its fast path. Tiny random-weight models from
configs; every output compared with the run without capture."""

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from maskattn_tui import capture  # noqa: E402

IDS = torch.tensor([[0, 0, 5, 6, 7], [3, 4, 5, 6, 7]])  # row 0 left-padded by 2
ATTENTION = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])


def attention_calls(cap) -> list[dict]:
    """The layers' calls (an SDPA call made inside an HF layer's call is that call)."""
    return [c for c in cap.calls if c["kind"] in ("hf", "sdpa", "mha") and c.get("within") is None]


def stored(cap, call, b=0, h=0):
    """The table capture wrote for batch row b, head h of a call (masks/<hash>.npy)."""
    mask = call["mask"]
    digest = mask["hashes"][min(b, mask["batch"] - 1)][min(h, mask["heads"] - 1)]
    return np.load(os.path.join(cap.dir, "masks", digest + ".npy"))


def falcon(impl):
    from transformers import FalconConfig, FalconForCausalLM

    torch.manual_seed(0)
    config = FalconConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, pad_token_id=0,
                          attn_implementation=impl)
    return FalconForCausalLM(config).eval()


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
def test_falcon_generate_is_recorded_layer_by_layer(tmp_path, impl):
    model = falcon(impl)
    kwargs = dict(input_ids=IDS, attention_mask=ATTENTION, max_new_tokens=2, do_sample=False, pad_token_id=0)
    plain = model.generate(**kwargs)
    with capture(tmp_path) as cap:
        captured = model.generate(**kwargs)
    assert torch.equal(plain, captured)
    calls = attention_calls(cap)
    assert [(c["site"], c["generate_step"], c["q_len"], c["k_len"]) for c in calls] == [
        ("transformer.h.0.self_attention", 0, 5, 5), ("transformer.h.1.self_attention", 0, 5, 5),
        ("transformer.h.0.self_attention", 1, 1, 6), ("transformer.h.1.self_attention", 1, 1, 6)]
    assert {c.get("via") for c in calls} == ({"module argument"} if impl == "eager" else {None})
    # every record takes a number: the manifest says which kinds the numbers went to
    with open(os.path.join(cap.dir, "capture.json"), encoding="utf-8") as file:
        kinds = json.load(file)["kinds"]
    assert kinds == {"hf-mask": 2, "forward": 1, "hf" if impl == "eager" else "sdpa": 4}
    # the mask builders' 2-D padding mask, as runs of real tokens: row 0 starts after its 2 PAD
    builders = [c for c in cap.calls if c["kind"] == "hf-mask"]
    assert [c["padding_mask"]["runs"] for c in builders] == [[[[2, 5]], [[0, 5]]], [[[2, 6]], [[0, 6]]]]
    # the tables, against causal + the padding written out by hand (bottom-right in decode)
    prefill, decode = calls[0], calls[2]
    for b, hidden in ((0, 2), (1, 0)):
        causal = np.tril(np.ones((5, 5), dtype=bool))
        causal[:, :hidden] = False
        row = np.ones((1, 6), dtype=bool)
        row[:, :hidden] = False
        for call, want in ((prefill, causal), (decode, row)):
            table = stored(cap, call, b)
            visible = table if table.dtype == bool else table == 0  # eager: 0 / the dtype's minimum
            assert visible.tolist() == want.tolist()
            if table.dtype != bool:
                assert set(np.unique(table)) <= {0.0, np.finfo(np.float32).min}


def test_t5_encoder_run_by_generate_keeps_its_path_and_a_later_forward_is_no_step(tmp_path):
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    config = T5Config(vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    model = T5ForConditionalGeneration(config).eval()
    ids = torch.tensor([[5, 6, 7, 8, 2], [5, 6, 7, 9, 9]])
    with capture(tmp_path) as cap, torch.no_grad():
        model.generate(input_ids=ids, max_new_tokens=2, min_new_tokens=2, do_sample=False)
        model(input_ids=ids, decoder_input_ids=ids[:, :2])  # a plain forward after generate()
    sites = [(c["site"], c["generate_step"], c["forward"]) for c in attention_calls(cap)]
    encoder = [("encoder.block.0.layer.0.SelfAttention", 0, 0), ("encoder.block.1.layer.0.SelfAttention", 0, 0)]
    decoder = [(f"decoder.block.{i}.layer.{j}.{name}", None, None) for i in range(2)
               for j, name in enumerate(("SelfAttention", "EncDecAttention"))]
    assert sites == encoder + [(s, 0, 1) for s, _, _ in decoder] + [(s, 1, 2) for s, _, _ in decoder] + \
        [(s, None, 3) for s, _, _ in encoder] + [(s, None, 3) for s, _, _ in decoder]


@pytest.mark.parametrize("family", ["bart", "whisper"])
def test_encoder_decoder_sites_are_full_paths_in_generate(tmp_path, family):
    torch.manual_seed(0)
    if family == "bart":
        from transformers import BartConfig, BartForConditionalGeneration

        config = BartConfig(vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                            decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                            max_position_embeddings=64, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                            decoder_start_token_id=2)
        model = BartForConditionalGeneration(config).eval()
        inputs = dict(input_ids=torch.tensor([[5, 6, 7, 8, 2]]))
        source = 5
    else:
        from transformers import WhisperConfig, WhisperForConditionalGeneration

        config = WhisperConfig(vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                               decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, num_mel_bins=8,
                               max_source_positions=8, max_target_positions=16, pad_token_id=0, bos_token_id=1,
                               eos_token_id=2, decoder_start_token_id=1, suppress_tokens=None,
                               begin_suppress_tokens=None)
        model = WhisperForConditionalGeneration(config).eval()
        inputs = dict(input_features=torch.randn(1, 8, 16))
        source = 8
    kwargs = dict(max_new_tokens=2, min_new_tokens=2, do_sample=False, **inputs)
    plain = model.generate(**kwargs)
    with capture(tmp_path) as cap:
        assert torch.equal(model.generate(**kwargs), plain)
    assert [(c["site"], c["generate_step"], c["q_len"], c["k_len"]) for c in attention_calls(cap)] == [
        ("model.encoder.layers.0.self_attn", 0, source, source),
        ("model.decoder.layers.0.self_attn", 0, 1, 1), ("model.decoder.layers.0.encoder_attn", 0, 1, source),
        ("model.decoder.layers.0.self_attn", 1, 1, 2), ("model.decoder.layers.0.encoder_attn", 1, 1, source)]


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype stage")
def test_a_transformer_encoder_on_its_fast_path_is_named_by_its_layers(tmp_path):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=True).eval()
    x = torch.randn(2, 5, 16)
    padding = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    with torch.no_grad():
        plain = encoder(x, src_key_padding_mask=padding)
        with capture(tmp_path) as cap:
            captured = encoder(x, src_key_padding_mask=padding)
    assert torch.equal(plain.to_padded_tensor(0.0) if plain.is_nested else plain,
                       captured.to_padded_tensor(0.0) if captured.is_nested else captured)
    calls = attention_calls(cap)
    assert [(c["site"], c["via"], c["layer_path"]) for c in calls] == [
        ("layers.0", "encoder fast path", "layers.0"), ("layers.1", "encoder fast path", "layers.1")]
    assert np.isneginf(stored(cap, calls[0], b=1)[:, 3:]).all() and (stored(cap, calls[0], b=1)[:, :3] == 0).all()


def test_a_plain_forward_sharing_the_prefills_mask_is_named_apart(tmp_path):
    """generate() then forward() on the same batch: the prefill's tables serve both; the summary
    says which calls were the prefill and which the plain forward (not all "generate prefill")."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                         num_attention_heads=4, num_key_value_heads=2, pad_token_id=0,
                                         attn_implementation="sdpa")).eval()
    with capture(tmp_path) as cap, torch.no_grad():
        model.generate(input_ids=IDS, attention_mask=ATTENTION, max_new_tokens=3, do_sample=False, pad_token_id=0)
        model(input_ids=IDS, attention_mask=ATTENTION)
    layers = [c for c in attention_calls(cap) if c["kind"] == "hf"]
    assert [(c["forward"], c["generate_step"]) for c in layers] == [(0, 0), (0, 0), (1, 1), (1, 1), (2, 2), (2, 2),
                                                                    (3, None), (3, None)]
    prefill = [line for line in cap.summary().splitlines() if " 5x5 " in line]
    assert len(prefill) == 2 and all(line.endswith("generate prefill; forwards 3") for line in prefill)
