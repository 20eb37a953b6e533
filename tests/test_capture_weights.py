"""capture --weights: each call's q and k kept, and the bars of mask mode on
the capture showing the call's real attention weights. Checked against the
model's own attention weights (transformers' eager attention with
output_attentions=True) of a tiny random-weight Llama (no downloads)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from maskattn_tui.capture.findings import primary  # noqa: E402
from maskattn_tui.capture.folder import load  # noqa: E402
from maskattn_tui.capture.table_files import mask_path  # noqa: E402
from maskattn_tui.maskmode.capture_doc import CallPicker  # noqa: E402
from maskattn_tui.capture.real_weights import call_scores  # noqa: E402
from maskattn_tui.cli import main  # noqa: E402
from maskattn_tui.maskmode.row_weights import row_weights  # noqa: E402
from maskattn_tui.maskmode.text import bars_caption  # noqa: E402

#: row 0 left-padded by 2, row 1 full
IDS = torch.tensor([[0, 0, 5, 6, 7], [3, 4, 5, 6, 7]])
ATTENTION = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])


def llama(impl: str, kv_heads: int = 2):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=kv_heads,
                         intermediate_size=64, vocab_size=100, max_position_embeddings=64, pad_token_id=0,
                         attn_implementation=impl)
    return LlamaForCausalLM(config).eval()


def own_weights(kv_heads: int) -> np.ndarray:
    """The model's own attention weights of layer 0: [B, H, Q, K]."""
    with torch.no_grad():
        out = llama("eager", kv_heads)(input_ids=IDS, attention_mask=ATTENTION, output_attentions=True)
    return out.attentions[0].double().numpy()


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
@pytest.mark.parametrize("kv_heads", [2, 1])
def test_the_bars_show_the_models_own_weights(tmp_path, impl, kv_heads):
    from maskattn_tui import capture

    expected = own_weights(kv_heads)
    model = llama(impl, kv_heads)
    with torch.no_grad(), capture(tmp_path, weights=True):
        model(input_ids=IDS, attention_mask=ATTENTION)
    document = load(str(tmp_path))
    assert document["weights"] is True
    picker = CallPicker(str(tmp_path), document)
    assert len({e[0]["call"] for e in picker.entries}) == 1  # one layer, one forward
    seen = set()
    for index, (call, b, h, _) in enumerate(picker.entries):
        doc = CallPicker(str(tmp_path), document, index).open()
        assert doc.real
        for row in range(IDS.shape[1]):
            bars = doc.weights(row)
            assert bars.real and bars.given
            if bars.empty:  # the caption's word for it: a finite minimum gives a uniform average
                np.testing.assert_allclose(expected[b, h, row], 1 / IDS.shape[1], atol=1e-6)
            else:
                np.testing.assert_allclose(bars.weights, expected[b, h, row], atol=1e-5)
                seen.add((b, row))
        assert "real weights" in bars_caption(doc.weights(4), [0, 1, 2, 3, 4], "en")[0]
    # every row but the PAD queries of batch row 0 (which see no key)
    assert seen == {(b, r) for b in (0, 1) for r in range(5)} - {(0, 0), (0, 1)}
    # head 1 (the mask is broadcast over heads, so the picker shows head 0): the same formula
    for index, (call, b, _, digest) in enumerate(picker.entries):
        doc = CallPicker(str(tmp_path), document, index).open()
        if "weights" not in call:  # an SDPA call inside the HF layer: the layer kept q and k
            call = {**call, "weights": next(c for c in document["calls"] if c["call"] == call["within"])["weights"]}
        scores = call_scores(str(tmp_path), call, b, 1, np.load(mask_path(str(tmp_path), digest)))
        for row in range(2 if b == 0 else 0, 5):
            np.testing.assert_allclose(row_weights(doc.tables, row, scores).weights, expected[b, 1, row], atol=1e-5)


def test_outputs_identical_and_nothing_kept_without_weights(tmp_path):
    from maskattn_tui import capture

    model = llama("sdpa")
    with torch.no_grad():
        plain = model(input_ids=IDS, attention_mask=ATTENTION).logits
        with capture(tmp_path / "on", weights=True):
            kept = model(input_ids=IDS, attention_mask=ATTENTION).logits
        with capture(tmp_path / "off"):
            off = model(input_ids=IDS, attention_mask=ATTENTION).logits
    assert torch.equal(plain, kept) and torch.equal(plain, off)
    assert not (tmp_path / "off" / "qk").exists()
    calls = load(str(tmp_path / "off"))["calls"]
    assert calls and not any("weights" in c for c in calls)
    doc = CallPicker(str(tmp_path / "off"), load(str(tmp_path / "off"))).open()
    assert not doc.real and not doc.weights(4).given  # the seeded scores, as before
    on = load(str(tmp_path / "on"))
    kept_calls = [c for c in on["calls"] if c.get("weights")]
    assert kept_calls
    for call in kept_calls:
        w = call["weights"]
        q = np.load(tmp_path / "on" / "qk" / f"{w['q']}.npy")
        assert q.dtype == np.float32 and q.shape == (2, 2, 5, 16) and w["all"]
        assert w["scale"] == pytest.approx(16 ** -0.5)


def test_sdpa_scale_and_the_cli_flag(tmp_path):
    """A plain SDPA call with its own scale and a bool mask, run as a script
    under `capture --weights`: softmax(q·kᵀ·scale) over the mask's True keys."""
    script = tmp_path / "attend.py"
    script.write_text(
        "import torch, torch.nn.functional as F\n"
        "torch.manual_seed(1)\n"
        "q, k, v = torch.randn(1, 2, 4, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8)\n"
        "mask = torch.ones(4, 6, dtype=torch.bool).tril(2)\n"
        "F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.7)\n"
        "torch.save((q, k, mask), __file__ + '.pt')\n")
    out = tmp_path / "cap"
    assert main(["capture", "--weights", "-o", str(out), "--", "python", str(script)]) == 0
    q, k, mask = torch.load(str(script) + ".pt")
    expected = torch.softmax((q @ k.transpose(-1, -2) * 0.7).masked_fill(~mask, float("-inf")), -1).double()
    document = load(str(out))
    (call,) = primary(document["calls"])
    assert call["weights"]["scale"] == pytest.approx(0.7)
    doc = CallPicker(str(out), document).open()
    for row in range(4):
        np.testing.assert_allclose(doc.weights(row).weights, expected[0, 0, row].numpy(), atol=1e-6)


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
def test_generate_prefill_and_decode_steps(tmp_path, impl):
    """Every call of a left-padded generate() (prefill, then one query over
    the cache per step; GQA): the bars against the weights eager generate
    returns for that step and layer."""
    from maskattn_tui import capture

    def run(model):
        return model.generate(input_ids=IDS, attention_mask=ATTENTION, max_new_tokens=3, do_sample=False,
                              pad_token_id=0, output_attentions=True, return_dict_in_generate=True)

    with torch.no_grad():
        expected = run(llama("eager", 1)).attentions  # [step][layer]: [B, H, q, K]
        with capture(tmp_path, weights=True):
            got = run(llama(impl, 1))
    document = load(str(tmp_path))
    picker = CallPicker(str(tmp_path), document)
    steps = set()
    for index, (call, b, h, _) in enumerate(picker.entries):
        doc = CallPicker(str(tmp_path), document, index).open()
        assert doc.real
        step = call["generate_step"]
        want = expected[step][0][b, h].double().numpy()
        for row in range(doc.tables.rows):
            if not doc.weights(row).empty:
                np.testing.assert_allclose(doc.weights(row).weights, want[row], atol=1e-5)
        steps.add(step)
    assert steps == {0, 1, 2}
    assert torch.equal(got.sequences[:, :5], IDS)
    assert any(c["kind"] == "sdpa" for c in document["calls"]) == (impl == "sdpa")


def test_a_hand_edited_or_cut_capture_falls_back_to_the_seeded_bars(tmp_path):
    """A manifest whose weights name no file of capture's, or a q file that
    is gone: the call opens as without --weights (no error, no real bars)."""
    import json

    import torch.nn.functional as F

    from maskattn_tui import capture

    torch.manual_seed(2)
    q, k = torch.randn(1, 1, 3, 4), torch.randn(1, 1, 3, 4)
    with capture(tmp_path, weights=True):
        F.scaled_dot_product_attention(q, k, k, is_causal=True)
    path = tmp_path / "capture.json"
    document = json.loads(path.read_text())
    assert CallPicker(str(tmp_path), load(str(tmp_path))).open().real
    kept = document["calls"][0]["weights"]
    for bad in ({**kept, "q": "../capture"}, {**kept, "scale": "x"}, {**kept, "group": 0}, [1, 2]):
        document["calls"][0]["weights"] = bad
        path.write_text(json.dumps(document))
        doc = CallPicker(str(tmp_path), load(str(tmp_path))).open()
        assert not doc.real and not doc.weights(2).given
    document["calls"][0]["weights"] = kept
    path.write_text(json.dumps(document))
    (tmp_path / "qk" / f"{kept['q']}.npy").unlink()
    assert not CallPicker(str(tmp_path), load(str(tmp_path))).open().real
