"""A capture checked against its own intent (capture/hf_intent.py records
it, capture/against_intent.py checks it): tiny random-weight models built
from configs (no downloads) run `generate` under capture; correct runs read
with no error or warning, planted defects are caught with their cells. The
expected positions and cells come from transformers itself (its mask
builders' sizes, masking_utils' mask functions) or from numpy formulas,
never from the code under test."""

import numpy as np
import pytest
import torch
import transformers  # noqa: F401  (a skip for a missing library fails under CI)

from test_capture_hf import ATTENTION, IDS, doctor_json, llama

from maskattn_tui import capture
from maskattn_tui.capture.against_intent import positions
from maskattn_tui.cli import main

#: table-only codes a correct generate must not get once its intent is known
FALSE = {"top-left", "pad-query-rows", "packed-leak", "decode-is-causal", "empty-rows", "layers-differ"}


def run(tmp_path, model, **kw):
    """generate() with and without capture: bit-identical, and the calls."""
    with torch.no_grad():
        plain = model.generate(**kw, do_sample=False)
        with capture(tmp_path) as cap:
            captured = model.generate(**kw, do_sample=False)
    assert torch.equal(plain, captured)
    return cap.calls


def layers(calls):
    return [c for c in calls if c["kind"] == "hf"]


def assert_clean(capsys, folder, calls):
    """No error or warning anywhere, no table-only code, every layer call matched."""
    code, doc = doctor_json(capsys, folder, "--strict")
    assert code == 0, [f["message"] for f in doc["findings"]]
    found = doc["findings"]
    assert [f for f in found if f["level"] != "info"] == [], [f["message"] for f in found]
    for mask in doc["masks"]:
        assert mask["intent"] == "matches"
        codes = {f["code"] for f in mask["diagnosis"]["findings"] if f["level"] != "info"}
        assert not codes & FALSE, (mask["hash"], codes)
    matched = [f for f in found if f["code"] == "intent-matches"]
    assert len(matched) == 1 and sorted(matched[0]["calls"]) == [c["call"] for c in layers(calls)]
    return doc


def test_static_cache_reads_clean(tmp_path, capsys):
    """Unused slots are unused (not PAD keys), the prefill's top-left is_causal
    over a static cache is right, and left PAD is not a packed document."""
    model = llama("sdpa")
    for batch, name in (((IDS, ATTENTION), "padded"), ((IDS[1:], ATTENTION[1:]), "unpadded")):
        folder = tmp_path / name
        calls = run(folder, model, input_ids=batch[0], attention_mask=batch[1], max_new_tokens=3, pad_token_id=0,
                    cache_implementation="static")
        for call in layers(calls):
            intent, step = call["intent"], call["generate_step"]
            filled = 5 + step  # the prompt, then one token a step
            assert intent["cache_layer"] == "StaticLayer" and intent["builder"] == "create_causal_mask"
            assert list(positions(intent["k_pos"])) == list(range(filled)) + [-1] * (call["k_len"] - filled)
            assert list(positions(intent["q_pos"])) == (list(range(5)) if step == 0 else [filled - 1])
        if name == "unpadded":  # no PAD: SDPA's own is_causal in the prefill, correct here
            inner = [c for c in calls if c["kind"] == "sdpa" and c["generate_step"] == 0]
            # (transformers hands SDPA the first 5 of the 7 slots: the 2 left out are seen by no query)
            assert {(c["mask"]["from"], c["q_len"], c["k_len"]) for c in inner} == {("is_causal", 5, 5)}
        assert_clean(capsys, folder, calls)


def test_dynamic_cache_left_padded_reads_clean(tmp_path, capsys):
    calls = run(tmp_path, llama("eager"), input_ids=IDS, attention_mask=ATTENTION, max_new_tokens=3, pad_token_id=0)
    for call in layers(calls):
        assert call["intent"]["positions"] == "cache" and call["intent"]["cache_layer"] == "DynamicLayer"
        assert list(positions(call["intent"]["k_pos"])) == list(range(call["k_len"]))
    doc = assert_clean(capsys, tmp_path, calls)
    # the prompt's two PAD query rows are empty by intent: said as information
    meant = [f for f in doc["findings"] if f["code"] == "empty-rows-meant"]
    assert [f["params"]["rows"] for f in meant] == ["0, 1"]


def _mistral(impl="sdpa"):
    from transformers import MistralConfig, MistralForCausalLM

    torch.manual_seed(0)
    config = MistralConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, sliding_window=4,
                           max_position_embeddings=64, attn_implementation=impl)
    return MistralForCausalLM(config).eval()


PROMPT = torch.tensor([[3, 4, 5, 6, 7, 8]])


def test_mistral_sliding_cache_past_the_window_reads_clean(tmp_path, capsys):
    calls = run(tmp_path, _mistral(), input_ids=PROMPT, max_new_tokens=3, pad_token_id=0)
    built = {c["call"]: c for c in calls if c["kind"] == "hf-mask"}
    for call in layers(calls):
        intent = call["intent"]
        # the key positions agree with the sizes transformers' cache gave the mask builder
        builder = built[intent["builder_call"]]
        assert intent["k_pos"] == [[builder["kv_offset"], builder["k_len"]]]
        assert intent["q_pos"] == [[builder["q_offset"], builder["q_len"]]]
    decode = [c for c in layers(calls) if c["generate_step"]]
    assert {c["intent"]["cache_layer"] for c in decode} == {"DynamicSlidingWindowLayer"}
    assert [positions(c["intent"]["k_pos"]).tolist() for c in decode[::2]] == [[3, 4, 5, 6], [4, 5, 6, 7]]
    doc = assert_clean(capsys, tmp_path, calls)
    assert {(i["kind"], i["window"]) for f in doc["findings"] if f["code"] == "intent-matches"
            for i in f["params"]["intents"]} == {("sliding", 4)}


def test_gemma3_sliding_and_full_layers_read_clean(tmp_path, capsys):
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    torch.manual_seed(0)
    config = Gemma3TextConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=16, sliding_window=3,
                              layer_types=["sliding_attention", "full_attention"], max_position_embeddings=64,
                              attn_implementation="sdpa")
    ids = torch.tensor([[0, 0, 5, 6, 7, 8], [3, 4, 5, 6, 7, 8]])
    mask = torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
    calls = run(tmp_path, Gemma3ForCausalLM(config).eval(), input_ids=ids, attention_mask=mask, max_new_tokens=3,
                pad_token_id=0)
    sliding = [c for c in layers(calls) if c["layer"] == 0]
    assert {c["intent"]["builder"] for c in sliding} == {"create_sliding_window_causal_mask"}
    assert {c["intent"]["builder"] for c in layers(calls) if c["layer"] == 1} == {"create_causal_mask"}
    # past the window, the sliding layer's cache hands the last 3 positions (2 kept + the new one)
    assert [positions(c["intent"]["k_pos"]).tolist() for c in sliding[1:]] == [[4, 5, 6], [5, 6, 7]]
    assert_clean(capsys, tmp_path, calls)


def test_bart_encoder_padding_and_cross_attention_read_clean(tmp_path, capsys):
    from transformers import BartConfig, BartForConditionalGeneration

    torch.manual_seed(0)
    config = BartConfig(vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                        pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                        attn_implementation="sdpa")
    ids = torch.tensor([[5, 6, 7, 8, 1, 1, 1], [5, 6, 7, 8, 9, 10, 11]])
    calls = run(tmp_path, BartForConditionalGeneration(config).eval(), input_ids=ids,
                attention_mask=(ids != 1).long(), max_new_tokens=3, min_new_tokens=3)
    cross = [c for c in layers(calls) if c["site"].endswith("encoder_attn")]
    assert len(cross) == 3 and all(c["intent"]["cross"] and c["intent"]["k_pos"] == [[0, 7]] for c in cross)
    assert {c["intent"]["builder"] for c in cross} == {"create_bidirectional_mask"}
    doc = assert_clean(capsys, tmp_path, calls)
    kinds = {i["kind"] for f in doc["findings"] if f["code"] == "intent-matches" for i in f["params"]["intents"]}
    assert kinds == {"bidirectional", "causal", "cross"}
    # a 1 x 7 cross-attention row is described as what it is, not as "causal"
    capsys.readouterr()
    main(["doctor", str(tmp_path)])
    lines = [line for line in capsys.readouterr().out.splitlines() if "encoder_attn" in line]
    assert lines and all("cross-attention over the encoder's keys" in line for line in lines)


def _differs(doc):
    return [f for f in doc["findings"] if f["code"] == "intent-differs"]


def _cells(finding):
    return {(c["layer"], c["generate_step"], c["q"], c["k"], c["seen"]) for c in finding["cells"]}


def test_an_all_visible_4d_mask_given_to_a_causal_model(tmp_path, capsys):
    """Doge-style: a 4-D mask is used as given; the layers are causal."""
    model = llama("sdpa")
    ids = torch.tensor([[3, 4, 5, 6, 7]])
    with torch.no_grad(), capture(tmp_path) as cap:
        model(ids, attention_mask=torch.ones(1, 1, 5, 5, dtype=torch.bool), use_cache=False)
    code, doc = doctor_json(capsys, tmp_path, "--strict")
    assert code == 1
    [finding] = _differs(doc)
    assert finding["level"] == "error" and finding["calls"] == [c["call"] for c in layers(cap.calls)]
    q, k = np.triu_indices(5, 1)  # every future cell, in both layers
    want = {(layer, None, int(a), int(b), True) for layer in (0, 1) for a, b in zip(q, k)}
    assert finding["params"]["count"] == 20 and _cells(finding) == want


def test_a_window_one_too_wide_in_a_registered_mask_function(tmp_path, capsys):
    """A custom AttentionMaskInterface function widens the window of the
    sliding layer (layer 0); the full layer (1) is untouched."""
    from transformers import AttentionInterface, Gemma3ForCausalLM, Gemma3TextConfig
    from transformers.integrations.sdpa_attention import sdpa_attention_forward
    from transformers.masking_utils import (AttentionMaskInterface, and_masks, causal_mask_function, sdpa_mask,
                                            sliding_window_causal_mask_function, sliding_window_overlay)

    def wide(*args, local_size=None, mask_function=None, **kwargs):
        if local_size is not None:
            mask_function = and_masks(causal_mask_function, sliding_window_overlay(local_size + 1))
        return sdpa_mask(*args, mask_function=mask_function, local_size=local_size, **kwargs)

    AttentionInterface.register("capture_test_wide", sdpa_attention_forward)
    AttentionMaskInterface.register("capture_test_wide", wide)
    try:
        torch.manual_seed(0)
        config = Gemma3TextConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                  num_attention_heads=2, num_key_value_heads=1, head_dim=16, sliding_window=3,
                                  layer_types=["sliding_attention", "full_attention"], max_position_embeddings=64,
                                  attn_implementation="capture_test_wide")
        calls = run(tmp_path, Gemma3ForCausalLM(config).eval(), input_ids=PROMPT, max_new_tokens=2, pad_token_id=0)
    finally:
        del AttentionInterface._global_mapping["capture_test_wide"]
        del AttentionMaskInterface._global_mapping["capture_test_wide"]
    code, doc = doctor_json(capsys, tmp_path, "--strict")
    assert code == 1
    [finding] = _differs(doc)
    prefill = [c["call"] for c in layers(calls) if c["layer"] == 0 and c["generate_step"] == 0]
    assert finding["calls"] == prefill and finding["params"]["layers"] == [0]
    # the cells: transformers' own window-3 table against the window-4 one over the 6 prompt positions
    real = sdpa_mask(batch_size=1, q_length=6, kv_length=6, mask_function=sliding_window_causal_mask_function(3),
                     allow_is_causal_skip=False)[0, 0].numpy()
    wider = sdpa_mask(batch_size=1, q_length=6, kv_length=6, mask_function=sliding_window_causal_mask_function(4),
                      allow_is_causal_skip=False)[0, 0].numpy()
    want = {(0, 0, int(a), int(b), True) for a, b in zip(*np.nonzero(wider & ~real))}
    assert want == {(0, 0, 3, 0, True), (0, 0, 4, 1, True), (0, 0, 5, 2, True)} and _cells(finding) == want


@pytest.mark.parametrize("kept", [0, 1, -1])
def test_a_cache_that_keeps_one_key_too_many_or_too_few(tmp_path, capsys, kept):
    """A decode kernel that passes no mask ("the cache holds the window"):
    right over transformers' sliding cache; one key too many over a layer
    whose cache keeps the window plus one (a cell seen), one too few over a
    layer that keeps one less (a key the query is meant to see and the cache
    no longer holds)."""
    from transformers import AttentionInterface, DynamicCache
    from transformers.integrations.sdpa_attention import sdpa_attention_forward
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask, sliding_window_causal_mask_function

    def decode_kernel(module, query, key, value, attention_mask, **kwargs):
        return sdpa_attention_forward(module, query, key, value, None if query.shape[-2] == 1 else attention_mask,
                                      **kwargs)

    AttentionInterface.register("capture_test_decode", decode_kernel)
    AttentionMaskInterface.register("capture_test_decode", sdpa_mask)
    try:
        model = _mistral("capture_test_decode")
        cache = DynamicCache(config=model.config)
        cache.layers[1].sliding_window += kept
        with torch.no_grad(), capture(tmp_path) as cap:
            model.generate(input_ids=PROMPT, max_new_tokens=3, do_sample=False, pad_token_id=0, cache=cache)
    finally:
        del AttentionInterface._global_mapping["capture_test_decode"]
        del AttentionMaskInterface._global_mapping["capture_test_decode"]
    if not kept:
        assert_clean(capsys, tmp_path, cap.calls)
        return
    code, doc = doctor_json(capsys, tmp_path, "--strict")
    assert code == 1
    [finding] = _differs(doc)
    decode = [c for c in layers(cap.calls) if c["layer"] == 1 and c["generate_step"]]
    assert finding["calls"] == [c["call"] for c in decode]
    # each decode query (positions 6, 7) sees 4 + kept keys, the last ones; transformers' window-4 function
    # says which of positions 0..q it is meant to see
    rule = sliding_window_causal_mask_function(4)
    want = set()
    for call in decode:
        k_pos = positions(call["intent"]["k_pos"])
        q = int(positions(call["intent"]["q_pos"])[0])
        assert k_pos.tolist() == list(range(q - 3 - kept, q + 1))
        meant = {k for k in range(q + 1) if rule(0, 0, torch.tensor(q), torch.tensor(k))}
        want |= {(1, call["generate_step"], q, int(k), True) for k in set(k_pos.tolist()) - meant}  # seen
        want |= {(1, call["generate_step"], q, k, False) for k in meant - set(k_pos.tolist())}  # not held
    assert want == ({(1, 1, 6, 2, True), (1, 2, 7, 3, True)} if kept > 0 else
                    {(1, 1, 6, 3, False), (1, 2, 7, 4, False)})
    assert _cells(finding) == want


def test_the_finding_in_both_languages(tmp_path, capsys):
    model = llama("sdpa")
    with torch.no_grad(), capture(tmp_path):
        model(torch.tensor([[3, 4, 5]]), attention_mask=torch.ones(1, 1, 3, 3, dtype=torch.bool), use_cache=False)
    texts = {}
    for lang in ("en", "zh"):
        capsys.readouterr()
        assert main(["doctor", str(tmp_path), "--lang", lang]) == 0
        out = capsys.readouterr().out
        texts[lang] = [line for line in out.splitlines() if "#0, 2" in line and "model.layers.{0-1}" in line][-1]
    assert "differs from its intent" in texts["en"] and "query 0 sees key 1, not meant to" in texts["en"]
    assert "与它的意图" in texts["zh"] and "查询 0 看到了 Key 1（本不该看到）" in texts["zh"]
    assert "not meant" not in texts["zh"]


def test_docs_name_every_recorded_intent_field(tmp_path):
    """docs/json.md's `intent` table names exactly the fields capture records."""
    import re
    from pathlib import Path

    import maskattn_tui

    calls = run(tmp_path, _mistral(), input_ids=PROMPT, max_new_tokens=2, pad_token_id=0)
    recorded = set().union(*(c["intent"] for c in layers(calls)))
    docs = (Path(maskattn_tui.__file__).parents[2] / "docs" / "json.md").read_text(encoding="utf-8")
    table = docs.split("`intent` (every `hf` call", 1)[1].split("\n\n", 2)[1]
    named = {name for line in table.splitlines() for name in re.findall(r"`(\w+)`", line.split("|")[1])}
    assert named == recorded
    built = next(c for c in calls if c["kind"] == "hf-mask")
    assert {"builder", "overlays"} <= set(built) and "`builder`" in docs and "`overlays`" in docs


def test_a_4d_mask_of_the_users_own_with_pad_keys(tmp_path, capsys):
    """No builder ran (a 4-D mask is used as given) and no 2-D attention_mask
    was seen: the keys no query sees are taken as PAD, so a correct causal
    mask with two left PAD keys matches; the same mask with one future cell
    open does not, and that cell is named."""
    model = llama("sdpa")
    correct = torch.ones(5, 5, dtype=torch.bool).tril()
    correct[:, :2] = False
    leaky = correct.clone()
    leaky[2, 3] = True
    for name, mask in (("correct", correct), ("leaky", leaky)):
        with torch.no_grad(), capture(tmp_path / name) as cap:
            model(torch.tensor([[0, 0, 5, 6, 7]]), attention_mask=mask[None, None], use_cache=False)
        if name == "correct":
            assert_clean(capsys, tmp_path / name, cap.calls)
            continue
        code, doc = doctor_json(capsys, tmp_path / name, "--strict")
        [finding] = _differs(doc)
        assert code == 1 and _cells(finding) == {(0, None, 2, 3, True), (1, None, 2, 3, True)}


def test_no_mask_layers_are_told_their_own_builder(tmp_path, capsys):
    """Gemma 3 without PAD: both builders return None (SDPA's is_causal
    instead); each layer records the builder of its own type."""
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    torch.manual_seed(0)
    config = Gemma3TextConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=16, sliding_window=8,
                              layer_types=["sliding_attention", "full_attention"], max_position_embeddings=64,
                              attn_implementation="sdpa")
    calls = run(tmp_path, Gemma3ForCausalLM(config).eval(), input_ids=PROMPT[:, :4], max_new_tokens=3,
                pad_token_id=0)
    built = {c["call"]: c for c in calls if c["kind"] == "hf-mask"}
    assert all(b["result"] is None for b in built.values())
    for call in layers(calls):
        assert call["mask"] is None
        want = "create_sliding_window_causal_mask" if call["layer"] == 0 else "create_causal_mask"
        assert call["intent"]["builder"] == want == built[call["intent"]["builder_call"]]["builder"]
    assert_clean(capsys, tmp_path, calls)


def test_a_builder_overlay_leaves_the_table_only_reading(tmp_path, capsys):
    """Packed documents (restarting position_ids, no cache): the builder adds
    its own rule, so no intent is claimed; the table-only reading still
    finds the two documents."""
    model = llama("sdpa")
    positions_ids = torch.tensor([[0, 1, 2, 0, 1, 2, 3]])
    with torch.no_grad(), capture(tmp_path) as cap:
        model(torch.tensor([[3, 4, 5, 6, 7, 8, 9]]), position_ids=positions_ids, use_cache=False)
    code, doc = doctor_json(capsys, tmp_path)
    [unknown] = [f for f in doc["findings"] if f["code"] == "intent-unknown"]
    assert unknown["calls"] == [c["call"] for c in layers(cap.calls)]
    assert unknown["params"] == {"reason": "overlay", "overlays": "packed_sequence_mask"}
    assert [m["intent"] for m in doc["masks"]] == [None] and doc["masks"][0]["diagnosis"]["documents"] == [3, 4]


def _config_seen(calls):
    return [c["intent"]["config"]["attention_chunk_size"] for c in layers(calls)]


def test_a_config_changed_between_calls_is_read_again(tmp_path):
    """A layer's flags and config are read once a generate() call (or once
    a forward outside one), not at every layer of every step: a change
    between two calls shows in the second, and only there."""
    from test_capture_hf import generate

    model = llama("sdpa")
    with torch.no_grad(), capture(tmp_path / "gen") as cap:
        generate(model)
        model.config.attention_chunk_size = 7  # (a field Llama's masks ignore; the intent records it)
        generate(model)
    seen = _config_seen(cap.calls)
    assert len(seen) == 12 and seen == [None] * 6 + [7] * 6
    model.config.attention_chunk_size = None
    with torch.no_grad(), capture(tmp_path / "fwd") as cap:
        model(input_ids=IDS, attention_mask=ATTENTION)
        model.config.attention_chunk_size = 5
        model(input_ids=IDS, attention_mask=ATTENTION)
    assert _config_seen(cap.calls) == [None, None, 5, 5]
