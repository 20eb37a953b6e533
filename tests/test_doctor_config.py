"""`doctor FILE --config config.json`: masks transformers 5.24 really builds
(tiny configs, caches filled as a forward fills them, the library's own
builders), saved as a user would save them, read as matching their
config's intent (exit 0); each with one planted defect exits 1 naming the
planted cells. The configs are written by the config classes themselves
(save_pretrained), so the fields are those a real config.json holds."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from helpers import run_main
from intent_hf import as_bool, build, filled_cache
from transformers import (BartConfig, BertConfig, Gemma3Config, Gemma3TextConfig, LlamaConfig, Llama4TextConfig,
                          MistralConfig, ModernBertConfig)
from transformers.models.gemma3 import modeling_gemma3

TINY = dict(num_attention_heads=2, num_key_value_heads=1, head_dim=4, hidden_size=8, vocab_size=16)


def _save(tmp_path, name: str, mask) -> str:
    path = tmp_path / f"{name}.npy"
    np.save(path, mask if isinstance(mask, np.ndarray) else mask.numpy())
    return str(path)


def _config(tmp_path, config, name: str = "model") -> str:
    folder = tmp_path / name
    config.save_pretrained(folder)
    return str(folder)


def doctor(*argv):
    return run_main("doctor", *argv, "--lang", "en")


def doctor_json(*argv):
    ran = run_main("doctor", *argv, "--json")
    return ran.returncode, json.loads(ran.stdout)


def _differs(document) -> set[tuple[int, int]]:
    site = next(s for s in document["sites"] if not s["match"])
    return {tuple(c) for c in site["differs"]}


def test_llama_decode_over_a_dynamic_cache(tmp_path):
    config = LlamaConfig(num_hidden_layers=2, **TINY)
    cache = filled_cache(config, 5)
    am = np.array([[0, 0, 1, 1, 1, 1, 1, 1]])  # two left PAD tokens
    mask, _ = build("create_causal_mask", config, q_len=3, attention_mask=am, cache=cache)
    folder = _config(tmp_path, config)
    good = _save(tmp_path, "good", mask)
    ran = doctor(good, "--config", folder)
    assert ran.returncode == 0, ran.stdout
    assert "matches the expected table" in ran.stdout and "keys 0,1: hidden from every query" in ran.stdout
    assert doctor(good, "--config", folder, "--layer", "1", "--attention-mask", "0,0,1,1,1,1,1,1").returncode == 0
    leaked = mask.clone()
    leaked[0, 0, 0, 6] = True  # the query at position 5 sees position 6
    code, doc = doctor_json(_save(tmp_path, "leak", leaked), "--config", folder, "--layer", "0")
    assert code == 1 and doc["match"] is False and _differs(doc) == {(0, 6)}
    assert doc["sites"][0]["shown_but_hidden"] == [[0, 6]]


def test_doge_style_all_visible_mask_for_a_causal_config(tmp_path):
    """transformers #48748: a 4-D mask with no causal term given to a causal model."""
    folder = _config(tmp_path, LlamaConfig(num_hidden_layers=1, **TINY))
    ran = doctor(_save(tmp_path, "doge", np.ones((1, 1, 4, 4), dtype=bool)), "--config", folder)
    assert ran.returncode == 1
    code, doc = doctor_json(_save(tmp_path, "doge", np.ones((1, 1, 4, 4), dtype=bool)), "--config", folder)
    assert code == 1 and _differs(doc) == {(r, k) for r in range(4) for k in range(4) if k > r}


def _gemma_text(window=3):
    return Gemma3TextConfig(num_hidden_layers=4, layer_types=["sliding_attention", "full_attention"] * 2,
                            sliding_window=window, **TINY)


@pytest.mark.parametrize("q_len", [1, 4])
def test_sliding_and_full_layers_with_a_cache_past_the_window(tmp_path, q_len):
    config = _gemma_text()
    cache = filled_cache(config, 6)
    folder = _config(tmp_path, config)
    slid, _ = build("create_sliding_window_causal_mask", config, q_len=q_len, cache=cache)
    full, _ = build("create_causal_mask", config, q_len=q_len, cache=cache)
    s, f = _save(tmp_path, "slid", slid), _save(tmp_path, "full", full)
    for layer in ("0", "2"):
        assert doctor(s, "--config", folder, "--layer", layer, "--past", "6").returncode == 0
    assert doctor(f, "--config", folder, "--layer", "3", "--past", "6").returncode == 0
    code, doc = doctor_json(f, "--config", folder)  # which layers does it fit?
    assert code == 0 and [x["layers"] for x in doc["sites"] if x["match"]] == [["1", "3"]]
    # a window one too wide: each query also sees the key just before its window
    wide = as_bool(slid, 1, q_len, slid.shape[-1])[0]
    k_pos = np.arange(slid.shape[-1]) + (6 + q_len - slid.shape[-1])
    planted = set()
    for r in range(q_len):
        k = int(np.searchsorted(k_pos, 6 + r - 3))
        if 0 <= k < wide.shape[1] and k_pos[k] == 6 + r - 3:
            wide[r, k] = True
            planted.add((r, k))
    assert planted or q_len == 1  # one query: the cache dropped the key before its window
    if planted:
        code, doc = doctor_json(_save(tmp_path, "wide", wide), "--config", folder, "--layer", "0", "--past", "6")
        assert code == 1 and _differs(doc) == planted


def test_mistral_without_layer_types_is_sliding_everywhere(tmp_path):
    config = MistralConfig(num_hidden_layers=2, sliding_window=3, **TINY)
    folder = _config(tmp_path, config)
    assert "layer_types" not in json.loads((tmp_path / "model" / "config.json").read_text())
    mask, _ = build("create_sliding_window_causal_mask", config, q_len=6)
    good = as_bool(mask, 1, 6, 6)[0]
    assert doctor(_save(tmp_path, "m", good), "--config", folder, "--layer", "1").returncode == 0
    narrow = good.copy()
    narrow[5, 3] = False  # window 2 on the last row
    code, doc = doctor_json(_save(tmp_path, "n", narrow), "--config", folder, "--layer", "1")
    assert code == 1 and _differs(doc) == {(5, 3)} and doc["sites"][0]["hidden_but_shown"] == [[5, 3]]


def test_llama4_chunked_in_decode_past_a_chunk_boundary(tmp_path):
    config = Llama4TextConfig(num_hidden_layers=2, attention_chunk_size=4, layer_types=["chunked_attention",
                              "full_attention"], intermediate_size=8, intermediate_size_mlp=8, **TINY)
    cache = filled_cache(config, 6)
    folder = _config(tmp_path, config)
    mask, _ = build("create_chunked_causal_mask", config, q_len=3, cache=cache)  # positions 6, 7, 8
    chunked = as_bool(mask, 1, 3, mask.shape[-1])[0]
    assert doctor(_save(tmp_path, "c", chunked), "--config", folder, "--layer", "0", "--past", "6").returncode == 0
    # the query at 8 starts a new chunk: seeing position 7 crosses the boundary
    crossed = chunked.copy()
    k7 = int(np.flatnonzero(np.arange(mask.shape[-1]) + (9 - mask.shape[-1]) == 7)[0])
    crossed[2, k7] = True
    code, doc = doctor_json(_save(tmp_path, "x", crossed), "--config", folder, "--layer", "0", "--past", "6")
    assert code == 1 and _differs(doc) == {(2, k7)}
    ran = doctor(_save(tmp_path, "c", chunked), "--config", folder, "--layer", "0")
    assert "give --past" in ran.stdout  # without --past the chunk boundaries are a guess, and it says so


def test_bert_with_pad_and_a_causal_defect(tmp_path):
    config = BertConfig(num_hidden_layers=1, hidden_size=8, num_attention_heads=2, intermediate_size=8)
    folder = _config(tmp_path, config)
    am = np.array([[1, 1, 1, 1, 0, 0]])
    mask, _ = build("create_bidirectional_mask", config, q_len=6, attention_mask=am)
    good = as_bool(mask, 1, 6, 6)
    assert doctor(_save(tmp_path, "b", good), "--config", folder).returncode == 0
    assert doctor(_save(tmp_path, "b", good), "--config", folder, "--attention-mask", "1,1,1,1,0,0").returncode == 0
    causal = good & np.tril(np.ones((6, 6), dtype=bool))
    code, doc = doctor_json(_save(tmp_path, "c", causal), "--config", folder)
    assert code == 1 and _differs(doc) == {(r, k) for r in range(6) for k in range(4) if k > r}


def test_modernbert_local_layers(tmp_path):
    config = ModernBertConfig(local_attention=4, num_hidden_layers=3, hidden_size=8, num_attention_heads=2,
                              intermediate_size=8, vocab_size=16)
    folder = _config(tmp_path, config)
    mask, _ = build("create_bidirectional_sliding_window_mask", config, q_len=7)
    local = as_bool(mask, 1, 7, 7)[0]
    code, doc = doctor_json(_save(tmp_path, "l", local), "--config", folder)
    assert code == 0 and [x["layers"] for x in doc["sites"] if x["match"]] == [["1", "2"]]
    off = local.copy()
    off[0, 3] = True  # |q - k| = 3 > 2
    code, doc = doctor_json(_save(tmp_path, "o", off), "--config", folder, "--layer", "1")
    assert code == 1 and _differs(doc) == {(0, 3)}


def test_bart_cross_attention_over_padded_encoder_keys(tmp_path):
    config = BartConfig(encoder_layers=1, decoder_layers=1, d_model=8, encoder_attention_heads=2,
                        decoder_attention_heads=2, encoder_ffn_dim=8, decoder_ffn_dim=8, vocab_size=16)
    folder = _config(tmp_path, config)
    am = np.array([[1, 1, 1, 1, 0, 0, 0]])
    mask, kv = build("create_bidirectional_mask", config, q_len=3, attention_mask=am,
                     encoder_hidden_states=torch.zeros(1, 7, 8))
    cross = as_bool(mask, 1, 3, kv)
    ran = doctor(_save(tmp_path, "x", cross), "--config", folder, "--layer", "cross")
    assert ran.returncode == 0 and "cross-attention" in ran.stdout
    code, doc = doctor_json(_save(tmp_path, "x", cross), "--config", folder)  # which site? not the encoder's
    assert code == 0 and {tuple(x["layers"]): (x["match"], x["not_square"]) for x in doc["sites"]}[("encoder",)] \
        == (False, True) and [x["match"] for x in doc["sites"] if x["layers"] == ["cross"]] == [True]
    # the decoder's causal rule applied to encoder keys: a defect
    wrong = cross & np.tril(np.ones((3, 7), dtype=bool))
    code, doc = doctor_json(_save(tmp_path, "w", wrong), "--config", folder, "--layer", "cross",
                            "--attention-mask", "1,1,1,1,0,0,0")
    assert code == 1 and _differs(doc) == {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}
    # without the attention_mask, key 3 (hidden from every query) could be PAD: said, not hidden
    code, doc = doctor_json(_save(tmp_path, "w", wrong), "--config", folder, "--layer", "cross")
    assert code == 1 and _differs(doc) == {(0, 1), (0, 2), (1, 2)} and doc["pad_keys_read"] == [3, 4, 5, 6]
    leaked = cross.copy()
    leaked[0, 0, 5] = True  # an encoder PAD key seen
    code, doc = doctor_json(_save(tmp_path, "p", leaked), "--config", folder, "--layer", "cross",
                            "--attention-mask", "1,1,1,1,0,0,0")
    assert code == 1 and _differs(doc) == {(0, 5)}


def test_gemma3_image_blocks_from_token_types(tmp_path):
    text = _gemma_text(window=3)
    config = Gemma3Config(text_config=text.to_dict())
    folder = _config(tmp_path, config)
    types = [0, 1, 1, 1, 1, 0, 0, 1, 1, 0]
    blocks = modeling_gemma3.get_block_sequence_ids_for_mask(torch.tensor([types]))
    text._attn_implementation = "sdpa"
    masks = modeling_gemma3.create_masks_for_vision_model(
        config=text, inputs_embeds=torch.zeros(1, 10, 8), attention_mask=torch.ones(1, 10, dtype=torch.long),
        cache=None, position_ids=None, block_sequence_ids=blocks)
    tt = ",".join(map(str, types))
    for layer, kind in (("0", "sliding_attention"), ("1", "full_attention")):
        path = _save(tmp_path, kind, masks[kind])
        ran = doctor(path, "--config", folder, "--layer", layer, "--token-type-ids", tt)
        assert ran.returncode == 0, ran.stdout
    full = as_bool(masks["full_attention"], 1, 10, 10)[0]
    # without the token types the image block reads as leaked future cells
    code, doc = doctor_json(_save(tmp_path, "f", full), "--config", folder, "--layer", "1")
    assert code == 1 and _differs(doc) == {(r, k) for r in range(1, 5) for k in range(r + 1, 5)} | {(7, 8)}
    leaked = full.copy()
    leaked[5, 6] = True  # a text token sees the next text token
    code, doc = doctor_json(_save(tmp_path, "l", leaked), "--config", folder, "--layer", "1", "--token-type-ids", tt)
    assert code == 1 and _differs(doc) == {(5, 6)}


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("content,words", [
    (None, "no such file"),
    ("{not json", "not JSON"),
    ("[1, 2]", "a JSON object was expected"),
    ("{}", "no model_type"),
    ('{"model_type": "longformer", "attention_window": 4}', "longformer"),
    ('{"model_type": "mystery"}', "neither a known encoder nor a decoder"),
    ('{"model_type": "somenew", "architectures": ["SomeNewForCausalLM"], "sliding_window": 8}', "no layer_types"),
    ('{"model_type": "llama", "layer_types": ["linear_attention", "window_attention"]}', "no layer has a rule"),
])
def test_a_config_that_says_too_little_is_one_line_and_exit_2(tmp_path, content, words):
    mask = _save(tmp_path, "m", np.tril(np.ones((3, 3), dtype=bool)))
    config = str(tmp_path / "absent.json") if content is None else _write(tmp_path, "config.json", content)
    ran = doctor(mask, "--config", config)
    assert ran.returncode == 2 and ran.stdout == ""
    assert words in ran.stderr and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    code, doc = doctor_json(mask, "--config", config)
    assert code == 2 and doc["schema"] == "maskattn-doctor-error/1"


@pytest.mark.parametrize("argv,words", [
    (["--layer", "1"], "goes with --config"),
    (["--token-type-ids", "0,1,1"], "goes with --config"),
    (["--config", "CFG", "--expect"], "not with --expect"),
    (["--config", "CFG", "--window", "2"], "not with --window"),
    (["--config", "CFG", "--layer", "9"], "no such layer"),
    (["--config", "CFG", "--layer", "1"], "takes no attention mask"),
    (["--config", "CFG", "--token-type-ids", "0,1,1"], "Gemma 3 only"),
    (["--config", "CFG", "--attention-mask", "1,1"], "2 entries for 3 positions"),
])
def test_options_that_do_not_fit_are_one_line_and_exit_2(tmp_path, argv, words):
    mask = _save(tmp_path, "m", np.tril(np.ones((3, 3), dtype=bool)))
    cfg = _write(tmp_path, "config.json", '{"model_type": "llama", "layer_types": '
                                           '["full_attention", "linear_attention"]}')
    ran = doctor(mask, *[cfg if a == "CFG" else a for a in argv])
    assert ran.returncode == 2 and words in ran.stderr and len(ran.stderr.strip().splitlines()) == 1, ran.stderr


def test_a_model_folder_and_a_link_out_of_it(tmp_path):
    mask = _save(tmp_path, "m", np.tril(np.ones((3, 3), dtype=bool)))
    (tmp_path / "empty").mkdir()
    ran = doctor(mask, "--config", str(tmp_path / "empty"))
    assert ran.returncode == 2 and "no config.json" in ran.stderr
    outside = _write(tmp_path, "outside.json", '{"model_type": "llama"}')
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "config.json").symlink_to(outside)
    ran = doctor(mask, "--config", str(tmp_path / "linked"))
    assert ran.returncode == 2 and "link out of its folder" in ran.stderr
    assert doctor(mask, "--config", outside).returncode == 0  # the file itself, named: read


def test_chinese_output(tmp_path):
    folder = _config(tmp_path, LlamaConfig(num_hidden_layers=1, **TINY))
    ran = run_main("doctor", _save(tmp_path, "d", np.ones((3, 3), dtype=bool)), "--config", folder, "--lang", "zh")
    assert ran.returncode == 1 and "对照" in ran.stdout and "因果" in ran.stdout


@pytest.mark.parametrize("past,q_len", [(0, 3), (5, 1), (4, 2)])
def test_a_static_cache_mask_and_its_past(tmp_path, past, q_len):
    """A StaticCache's mask has keys for every slot: with --past the slots
    after the written ones are unused; without it, the report says which
    --past makes it match (or reads the unused slots as PAD-or-unused)."""
    config = LlamaConfig(num_hidden_layers=1, **TINY)
    folder = _config(tmp_path, config)
    cache = filled_cache(config, past, static=9)
    mask, _ = build("create_causal_mask", config, q_len=q_len, cache=cache, attention_mask=np.ones((1, past + q_len)))
    path = _save(tmp_path, "s", mask)
    code, doc = doctor_json(path, "--config", folder, "--past", str(past))
    assert code == 0 and doc["unused_slots"] == 9 - past - q_len and doc["key_positions"] == [0, past + q_len - 1]
    code, doc = doctor_json(path, "--config", folder)
    if q_len > 1:  # the default places the queries last: a hint names the --past that fits
        assert code == 1 and doc["sites"][0]["matches_with_past"] == past
        assert f"it matches with --past {past}:" in doctor(path, "--config", folder).stdout
    else:  # one query: the unused slots are hidden from it, like PAD
        assert code == 0 and doc["pad_keys_read"] == list(range(past + 1, 9))


def test_every_json_field_is_documented(tmp_path):
    from pathlib import Path

    import maskattn_tui

    docs = (Path(maskattn_tui.__file__).parents[2] / "docs" / "json.md").read_text(encoding="utf-8")
    section = docs.split('"maskattn-doctor-intent/1"', 1)[1].split("\n## ", 1)[0]
    folder = _config(tmp_path, _gemma_text())
    code, doc = doctor_json(_save(tmp_path, "m", np.tril(np.ones((4, 4), dtype=bool))), "--config", folder)
    assert code == 0
    named = set(doc) | set(doc["sites"][0]) | set(doc["sites"][0]["intent"])
    assert not {f for f in named if f"`{f}`" not in section}


def test_masks_a_tiny_model_really_received_in_generation(tmp_path):
    """A random 2-layer Gemma 3 (eager: additive float masks), prefill of 6
    then two decode steps over a DynamicCache (its sliding layer keeps the
    last window): every mask each layer's attention received reads as its
    layer's intent given the step's --past; the full layer's decode mask
    given to the sliding layer (a decode that forgot the window, nanochat
    #452) differs exactly on the keys before the window."""
    from transformers import DynamicCache, Gemma3ForCausalLM

    torch.manual_seed(0)
    config = Gemma3TextConfig(num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"],
                              sliding_window=3, intermediate_size=8, attn_implementation="eager", **TINY)
    folder = _config(tmp_path, config)
    model = Gemma3ForCausalLM(config).eval()
    seen = []
    for i, layer in enumerate(model.model.layers):
        layer.self_attn.register_forward_pre_hook(
            lambda mod, args, kwargs, i=i: seen.append((i, kwargs["attention_mask"])), with_kwargs=True)
    cache = DynamicCache(config=config)
    pasts = []
    with torch.no_grad():
        for ids in (torch.randint(0, 16, (1, 6)), torch.randint(0, 16, (1, 1)), torch.randint(0, 16, (1, 1))):
            pasts += [cache.get_seq_length()] * 2
            model(input_ids=ids, cache=cache, use_cache=True)
    assert len(seen) == 6 and all(m.dtype == torch.float32 for _, m in seen)
    for n, ((layer, mask), past) in enumerate(zip(seen, pasts)):
        path = _save(tmp_path, f"call{n}", mask)
        ran = doctor(path, "--config", folder, "--layer", str(layer), "--past", str(past))
        assert ran.returncode == 0, ran.stdout
    full_decode = _save(tmp_path, "forgot", seen[3][1])  # layer 1, past 6: 7 keys, all visible
    code, doc = doctor_json(full_decode, "--config", folder, "--layer", "0", "--past", "6")
    assert code == 1 and _differs(doc) == {(0, 0), (0, 1), (0, 2), (0, 3)}


def test_a_sliding_cache_that_keeps_one_key_too_many_or_too_few(tmp_path):
    """A decode step at position 6 of a window-3 layer: the cache should hold
    positions 4-6. One key too many shows as a visible cell outside the
    window; one too few as a position the window shows that no slot holds.
    The full layer's rule on the window's keys misses positions 0-3."""
    folder = _config(tmp_path, _gemma_text(window=3))
    many = _save(tmp_path, "many", np.ones((1, 1, 1, 4), dtype=bool))  # positions 3-6
    code, doc = doctor_json(many, "--config", folder, "--layer", "0", "--past", "6")
    assert code == 1 and _differs(doc) == {(0, 0)}
    few = _save(tmp_path, "few", np.ones((1, 1, 1, 2), dtype=bool))  # positions 5-6
    code, doc = doctor_json(few, "--config", folder, "--layer", "0", "--past", "6")
    assert code == 1 and doc["sites"][0]["differs_count"] == 0 and doc["sites"][0]["unheld_positions"] == [4]
    right = _save(tmp_path, "right", np.ones((1, 1, 1, 3), dtype=bool))
    assert doctor(right, "--config", folder, "--layer", "0", "--past", "6").returncode == 0
    code, doc = doctor_json(right, "--config", folder, "--layer", "1", "--past", "6")
    assert code == 1 and doc["sites"][0]["unheld_positions"] == [0, 1, 2, 3]
    ran = doctor(few, "--config", folder, "--layer", "0", "--past", "6")
    assert "no key slot holds them" in ran.stdout
