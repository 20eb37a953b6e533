"""Capture on tiny random-weight Hugging Face models built from configs (no
downloads): the calls each run makes (count, sites, steps, shapes), each
recorded mask against a second formula, the doctor's reading of it, and
outputs bit-identical with capture on."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from maskattn_tui.capture.findings import primary  # noqa: E402
from maskattn_tui.capture.folder import load  # noqa: E402
from maskattn_tui.capture.table_files import mask_path  # noqa: E402
from maskattn_tui.cli import main  # noqa: E402


def llama(impl: str, **extra):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         pad_token_id=0, attn_implementation=impl, **extra)
    return LlamaForCausalLM(config).eval()


#: row 0 left-padded by 2, row 1 full
IDS = torch.tensor([[0, 0, 5, 6, 7], [3, 4, 5, 6, 7]])
ATTENTION = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])


def generate(model, **kw):
    return model.generate(input_ids=IDS, attention_mask=ATTENTION, max_new_tokens=3, do_sample=False,
                          pad_token_id=0, **kw)


def table(folder, call, b=0, h=0):
    mask = call["mask"]
    row = mask["hashes"][min(b, mask["batch"] - 1)]
    return np.load(mask_path(folder, row[min(h, mask["heads"] - 1)]))


def expected_left_pad(rows: int, keys: int, pad: int) -> np.ndarray:
    """Bottom-right causal over the real keys (a second formula: no library)."""
    q = np.arange(keys - rows, keys)[:, None]
    k = np.arange(keys)[None, :]
    return (k <= q) & (k >= pad)


def doctor_json(capsys, folder, *extra):
    capsys.readouterr()
    code = main(["doctor", str(folder), "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("impl", ["sdpa", "eager"])
def test_llama_generate_left_padded(tmp_path, capsys, impl):
    from maskattn_tui import capture

    model = llama(impl)
    with torch.no_grad():
        plain = generate(model)
        with capture(tmp_path) as cap:
            captured = generate(model)
    assert torch.equal(plain, captured)
    hf = [c for c in cap.calls if c["kind"] == "hf"]
    # one forward for the prompt and one per new token after the first: 3 forwards x 2 layers
    assert len(hf) == 6
    assert [c["site"] for c in hf] == ["model.layers.0.self_attn", "model.layers.1.self_attn"] * 3
    assert [c["generate_step"] for c in hf] == [0, 0, 1, 1, 2, 2]
    assert [(c["q_len"], c["k_len"]) for c in hf] == [(5, 5)] * 2 + [(1, 6)] * 2 + [(1, 7)] * 2
    sdpa = [c for c in cap.calls if c["kind"] == "sdpa"]
    assert len(sdpa) == (6 if impl == "sdpa" else 0)
    assert all(cap.calls[c["within"]]["kind"] == "hf" for c in sdpa)
    for call in hf:
        assert call["mask"]["shape"] == [2, 1, call["q_len"], call["k_len"]]
        for b, pad in ((0, 2), (1, 0)):
            got = table(tmp_path, call, b)
            want = expected_left_pad(call["q_len"], call["k_len"], pad)
            if impl == "eager":
                assert got.dtype == np.float32 and set(np.unique(got)) <= {0.0, np.finfo(np.float32).min}
                got = got == 0
            assert np.array_equal(got, want), (call["call"], b)
    # each distinct table stored once: prefill, two decode steps, per batch row
    assert len(cap.document["masks"]) == 6
    code, doc = doctor_json(capsys, tmp_path)
    assert code == 0
    readings = {m["hash"]: m["diagnosis"] for m in doc["masks"]}
    for call in hf:
        for b, pad in ((0, 2), (1, 0)):
            d = readings[call["mask"]["hashes"][b][0]]
            assert d["rule"]["name"] == "causal" and d["alignment"] == "bottom-right"
            assert d["pad_key_count"] == pad and d["pad_side"] == ("left" if pad else None)
    # the PAD query rows of the prompt see no key: said once, for the calls that used that mask, and as
    # information (their intent leaves them empty too: PAD queries of the attention_mask), not a warning
    empty = [f for f in doc["findings"] if f["code"] in ("empty-rows", "empty-rows-meant")]
    assert len(empty) == 1 and empty[0]["calls"] == [c["call"] for c in hf[:2]]
    assert (empty[0]["code"], empty[0]["level"]) == ("empty-rows-meant", "info")
    # generate()'s position_ids give PAD a filler value: no restart among the real tokens, no packed-leak
    assert not {"decode-is-causal", "packed-leak"} & {f["code"] for f in doc["findings"]}


def test_llama_static_cache_hides_the_unused_slots(tmp_path, capsys):
    from maskattn_tui import capture

    model = llama("sdpa")
    with torch.no_grad():
        plain = generate(model, cache_implementation="static")
        with capture(tmp_path) as cap:
            captured = generate(model, cache_implementation="static")
    assert torch.equal(plain, captured)
    hf = [c for c in cap.calls if c["kind"] == "hf"]
    assert len(hf) == 6
    slots = {c["k_len"] for c in hf}
    assert len(slots) == 1 and slots.pop() >= 7  # every step sees the whole static cache
    for call in hf[2:]:  # decode: the new query at position 5 + step - 1
        position = 5 + call["generate_step"] - 1
        got = table(tmp_path, call, 1)
        assert got.shape == (1, call["k_len"])
        assert np.array_equal(np.flatnonzero(got[0]), np.arange(position + 1))
    # row 0 (2 PAD on the left): its slots 0-1 hidden as well
    assert np.array_equal(np.flatnonzero(table(tmp_path, hf[2], 0)[0]), np.arange(2, 6))


def test_mistral_sliding_window_prefill_and_decode(tmp_path, capsys):
    from transformers import MistralConfig, MistralForCausalLM

    from maskattn_tui import capture

    torch.manual_seed(0)
    config = MistralConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, sliding_window=4,
                           max_position_embeddings=64, attn_implementation="sdpa")
    model = MistralForCausalLM(config).eval()
    ids = torch.tensor([[3, 4, 5, 6, 7, 8]])
    with torch.no_grad():
        plain = model.generate(input_ids=ids, max_new_tokens=2, do_sample=False, pad_token_id=0)
        with capture(tmp_path) as cap:
            captured = model.generate(input_ids=ids, max_new_tokens=2, do_sample=False, pad_token_id=0)
    assert torch.equal(plain, captured)
    hf = [c for c in cap.calls if c["kind"] == "hf"]
    assert len(hf) == 4 and all(c["sliding_window"] == 4 for c in hf)
    prefill = table(tmp_path, hf[0])
    q, k = np.arange(6)[:, None], np.arange(6)[None, :]
    assert np.array_equal(prefill, (k <= q) & (k > q - 4))
    code, doc = doctor_json(capsys, tmp_path)
    reading = next(m["diagnosis"] for m in doc["masks"] if m["calls"][0] == hf[0]["call"])
    assert reading["window"] == 4
    # decode: the window lives in the cache (cropped), the mask is all visible; the builder says where
    builds = [c for c in cap.calls if c["kind"] == "hf-mask"]
    assert [(b["q_len"], b["k_len"], b["q_offset"], b["kv_offset"]) for b in builds] == [(6, 6, 0, 0), (1, 4, 6, 3)]
    assert np.all(table(tmp_path, hf[2]))  # decode: 1 x 4, all visible
    window = [f for f in doc["findings"] if f["code"] == "window-in-cache"]
    assert [(f["calls"], f["params"]["first"], f["params"]["last"]) for f in window] == \
        [([hf[2]["call"], hf[3]["call"]], 3, 6)]


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
def test_gemma3_sliding_and_full_layers_told_apart(tmp_path, capsys, impl):
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    from maskattn_tui import capture

    torch.manual_seed(0)
    config = Gemma3TextConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=16, sliding_window=3,
                              layer_types=["sliding_attention", "full_attention"], max_position_embeddings=64,
                              attn_implementation=impl)
    model = Gemma3ForCausalLM(config).eval()
    ids = torch.tensor([[3, 4, 5, 6, 7, 8]])
    with torch.no_grad():
        plain = model(ids, use_cache=False).logits
        with capture(tmp_path) as cap:
            captured = model(ids, use_cache=False).logits
    assert torch.equal(plain, captured)
    hf = [c for c in cap.calls if c["kind"] == "hf"]
    assert [c["layer_type"] for c in hf] == ["sliding_attention", "full_attention"]
    q, k = np.arange(6)[:, None], np.arange(6)[None, :]
    # sdpa: a layer with no mask to pass (the full one, no padding) leaves it to SDPA's is_causal
    shown = [c if c["mask"] is not None else next(s for s in cap.calls if s.get("within") == c["call"])
             for c in hf]
    assert shown == primary(cap.calls)
    assert [c["mask"]["from"] for c in shown] == ["attn_mask", "attn_mask" if impl == "eager" else "is_causal"]
    seen = (lambda t: t == 0) if impl == "eager" else (lambda t: t)  # additive 0 / min, or bool
    assert np.array_equal(seen(table(tmp_path, shown[0])), (k <= q) & (k > q - 3))
    assert np.array_equal(seen(table(tmp_path, shown[1])), k <= q)
    code, doc = doctor_json(capsys, tmp_path)
    by_call = {m["calls"][0]: m["diagnosis"] for m in doc["masks"]}
    assert by_call[shown[0]["call"]]["window"] == 3 and by_call[shown[1]["call"]]["window"] is None
    # a sliding and a full layer differ by design: not "layers that should share one mask"
    assert "layers-differ" not in [f["code"] for f in doc["findings"]]


def test_packed_batch_by_position_ids(tmp_path, capsys):
    from maskattn_tui import capture

    model = llama("sdpa")
    ids = torch.tensor([[3, 4, 5, 6, 7, 8, 9]])
    positions = torch.tensor([[0, 1, 2, 0, 1, 2, 3]])  # two documents: 3 and 4 tokens
    with torch.no_grad():
        plain = model(ids, position_ids=positions, use_cache=False).logits
        with capture(tmp_path) as cap:
            captured = model(ids, position_ids=positions, use_cache=False).logits
    assert torch.equal(plain, captured)
    hf = [c for c in cap.calls if c["kind"] == "hf"]
    assert len(hf) == 2 and hf[0]["forward"] == 0
    doc_of = np.array([0, 0, 0, 1, 1, 1, 1])
    q, k = np.arange(7)[:, None], np.arange(7)[None, :]
    want = (k <= q) & (doc_of[:, None] == doc_of[None, :])
    assert np.array_equal(table(tmp_path, hf[0]), want)
    code, doc = doctor_json(capsys, tmp_path)
    assert doc["masks"][0]["diagnosis"]["documents"] == [3, 4]


def test_a_killed_run_leaves_a_readable_capture(tmp_path, capsys):
    import subprocess
    import sys

    script = tmp_path / "killed.py"
    script.write_text(
        "import os, torch, torch.nn.functional as F\n"
        "from maskattn_tui import capture\n"
        f"cap = capture({str(tmp_path / 'cap')!r}).__enter__()\n"
        "q = torch.randn(1, 1, 3, 4)\n"
        "F.scaled_dot_product_attention(q, q, q, is_causal=True)\n"
        "os._exit(9)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 9
    document = load(str(tmp_path / "cap"))
    assert document["complete"] is False
    assert [c["kind"] for c in document["calls"]] == ["sdpa"]
    assert primary(document["calls"])[0]["mask"]["from"] == "is_causal"
    capsys.readouterr()
    assert main(["doctor", str(tmp_path / "cap")]) == 0
    text = capsys.readouterr().out
    assert "not complete: the run stopped before capture ended" in text and "(is_causal=True: top-left)" in text


def test_expect_over_every_call_of_a_capture(tmp_path, capsys):
    from maskattn_tui import capture

    model = llama("sdpa")
    with torch.no_grad(), capture(tmp_path):
        generate(model)
    # batch row 1 has no PAD: plain bottom-right causal in prefill and in each decode step
    code, doc = doctor_json(capsys, tmp_path, "--expect", "--batch", "1", "--site", "model.layers.*")
    assert code == 0 and len(doc["results"]) == 6 and all(r["match"] for r in doc["results"])
    # row 0 with its 2 left PAD (the prompt's PAD query rows see nothing, as --pad expects)
    layers = [c["call"] for c in load(str(tmp_path))["calls"] if c["kind"] == "hf"]
    code, doc = doctor_json(capsys, tmp_path, "--expect", "--batch", "0", "--pad", "2")
    assert code == 0 and [r["call"] for r in doc["results"]] == layers
    # row 0 read as if it had no PAD: its two PAD keys differ in every decode row
    code, doc = doctor_json(capsys, tmp_path, "--expect", "--batch", "0", "--call", str(layers[2]))
    assert code == 1 and doc["results"][0]["differs_count"] == 2
    capsys.readouterr()
    assert main(["doctor", str(tmp_path), "--expect", "--site", "nothing.*"]) == 2
    assert "--site nothing.*" in capsys.readouterr().err
    assert main(["doctor", str(tmp_path), "--call", "1"]) == 2  # --call picks what --expect checks
    assert "--call" in capsys.readouterr().err


def test_a_custom_attention_function_called_by_keyword(tmp_path):
    """A registered implementation whose callers pass arguments by name, and
    no mask at all, runs as without capture (and is recorded)."""
    from transformers import AttentionInterface
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    from maskattn_tui import capture

    def custom(module, query, key, value, attention_mask=None, **kwargs):
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, is_causal=True), None

    AttentionInterface.register("capture_test_custom", custom)
    try:
        q = torch.randn(1, 2, 3, 4)
        plain = custom(None, q, q, q)[0]
        with capture(tmp_path) as cap:
            fn = ALL_ATTENTION_FUNCTIONS.get_interface("capture_test_custom", None)
            out = fn(module=None, query=q, key=q, value=q)[0]
    finally:
        del AttentionInterface._global_mapping["capture_test_custom"]
    assert torch.equal(plain, out)
    assert [(c["kind"], c["implementation"] if c["kind"] == "hf" else c["within"]) for c in cap.calls] == \
        [("hf", "capture_test_custom"), ("sdpa", 0)]


@pytest.mark.parametrize("use_cache", [True, False])
def test_a_packed_batch_leaks_with_the_default_cache(tmp_path, capsys, use_cache):
    from maskattn_tui import capture

    model = llama("sdpa")
    ids = torch.tensor([[3, 4, 5, 6, 7, 8, 9]])
    positions = torch.tensor([[0, 1, 2, 0, 1, 2, 3]])
    with torch.no_grad(), capture(tmp_path) as cap:
        model(ids, position_ids=positions, use_cache=use_cache)
    forwards = [c for c in cap.calls if c["kind"] == "forward"]
    assert [f["documents"] for f in forwards] == [[[3, 4]]]
    code, doc = doctor_json(capsys, tmp_path)
    leak = [f for f in doc["findings"] if f["code"] == "packed-leak"]
    documents = [m["diagnosis"]["documents"] for m in doc["masks"]]
    if use_cache:  # transformers 5.24: a DynamicCache, so the mask is plain causal
        assert documents == [None] and [f["calls"] for f in leak] == [[c["call"] for c in primary(cap.calls)]]
    else:
        assert documents == [[3, 4]] and leak == []


def _line_of(path: str, text: str) -> int:
    """The number of the one line of `path` holding `text` (read here, not from capture)."""
    with open(path, encoding="utf-8") as file:
        found = [n for n, line in enumerate(file, start=1) if text in line]
    assert len(found) == 1, (path, text, found)
    return found[0]


def test_frames_of_every_call_of_a_generate(tmp_path):
    """Each call's frame (the nearest outside torch and capture) and user
    frame (the nearest outside any library), at every step of generate():
    the walks above each module call are shared between calls, and must
    give the same lines as reading the sources."""
    import inspect
    import os

    import transformers.integrations.sdpa_attention as sdpa_file
    import transformers.models.llama.modeling_llama as llama_file

    from maskattn_tui import capture

    model = llama("sdpa")
    with torch.no_grad(), capture(tmp_path) as cap:
        generate(model)
    here = os.path.relpath(os.path.realpath(inspect.getsourcefile(generate)), os.getcwd())
    lines, first = inspect.getsourcelines(generate)
    user = f"{here}:{first + next(n for n, line in enumerate(lines) if 'model.generate(' in line)}"
    layer = f"transformers/models/llama/modeling_llama.py:{_line_of(llama_file.__file__, 'attention_interface(')}"
    inner = "transformers/integrations/sdpa_attention.py:" + \
        str(_line_of(sdpa_file.__file__, "torch.nn.functional.scaled_dot_product_attention("))
    calls = cap.calls
    assert {c["kind"] for c in calls} == {"hf-mask", "hf", "sdpa", "forward"}
    assert {c["user_frame"] for c in calls} == {user}
    assert {c["frame"] for c in calls if c["kind"] == "hf"} == {layer}
    assert {c["frame"] for c in calls if c["kind"] == "sdpa"} == {inner}
    assert len([c for c in calls if c["kind"] == "hf"]) == 2 * 3  # 2 layers, prefill + 2 decode steps


def test_padding_runs_of_any_row():
    """A padding mask's runs of real tokens (an hf-mask record's padding_mask),
    against a walk over every key; rows past the 64 kept are counted."""
    from maskattn_tui.capture.tables import padding_runs

    def walked(row):
        runs = []
        for k, real in enumerate(row):
            if real and (k == 0 or not row[k - 1]):
                runs.append([k, k + 1])
            elif real:
                runs[-1][1] = k + 1
        return runs

    generator = torch.Generator().manual_seed(3)
    for rows, keys, dtype in [(2, 18, torch.long), (70, 9, torch.bool), (3, 1, torch.float), (5, 40, torch.int8)]:
        padding = (torch.rand(rows, keys, generator=generator) < 0.6).to(dtype)
        padding[0] = 1  # a full row, and one with nothing real
        if rows > 1:
            padding[1] = 0
        out = padding_runs(padding)
        assert out["runs"] == [walked([bool(v) for v in row]) for row in padding.tolist()[:64]]
        assert out["rows_left_out"] == max(0, rows - 64)
