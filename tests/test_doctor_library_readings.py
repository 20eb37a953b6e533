"""The table-only reading on masks real libraries build, of the families it
had misread (issue 31, points 3 and 4): FlexAttention create_mask on CPU
(packed encoder documents, Longformer global tokens, StreamingLLM sinks),
transformers 5.24 masking_utils with tiny offline configs (BART
cross-attention over padded encoder keys, BERT / ModernBERT PAD, Llama
causal, T5's position bias, BLOOM's ALiBi), torch's own helpers, Flax's
make_causal_mask / make_attention_mask / combine_masks and Keras 3's masks
(torch backend). Each is read as what it was built as, with no error-level
finding; one planted defect in each (a leaked future cell, a window one key
too wide) is caught with its cells; the printed check line passes on its
file; findings, --expect, --strict and --against agree."""

import os
import shlex

import numpy as np
import pytest
import torch

os.environ.setdefault("KERAS_BACKEND", "torch")  # Keras 3 on torch: no TensorFlow

from torch.nn.attention.flex_attention import create_mask  # noqa: E402
from transformers import BartConfig, T5Config  # noqa: E402
from transformers import masking_utils as mu  # noqa: E402
from transformers.models.bloom.modeling_bloom import build_alibi_tensor  # noqa: E402
from transformers.models.t5.modeling_t5 import T5Attention  # noqa: E402

from maskattn_tui.cli.commands import main  # noqa: E402
from maskattn_tui.doctor import diagnose, load_mask  # noqa: E402
from maskattn_tui.doctor.advice import fixed_of  # noqa: E402
from maskattn_tui.doctor.report import finding_message  # noqa: E402
from maskattn_tui.i18n import singular_counts  # noqa: E402

from helpers import tiny_config  # noqa: E402


def flex(mod, q, kv=None, heads=1):
    return create_mask(mod, 1, heads, q, q if kv is None else kv, device="cpu")


def docs_ids(lengths):
    return torch.repeat_interleave(torch.arange(len(lengths)), torch.tensor(lengths))


def bart_cross(q, k, pad):
    cfg = BartConfig(d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                     decoder_attention_heads=2, vocab_size=50)
    cfg._attn_implementation = "sdpa"
    return mu.create_bidirectional_mask(config=cfg, inputs_embeds=torch.zeros(1, q, 16),
                                        attention_mask=torch.tensor([[1] * (k - pad) + [0] * pad]),
                                        encoder_hidden_states=torch.zeros(1, k, 16), allow_is_bidirectional_skip=False)


def llama_causal(n, impl="sdpa"):
    return mu.create_causal_mask(config=tiny_config(None, impl), inputs_embeds=torch.zeros(1, n, 32),
                                 attention_mask=torch.ones(1, n, dtype=torch.long), cache=None,
                                 position_ids=torch.arange(n)[None], allow_is_causal_skip=False)


def mistral_window(n, w):
    from transformers import MistralConfig

    return mu.create_sliding_window_causal_mask(
        config=tiny_config(MistralConfig, "sdpa", sliding_window=w), inputs_embeds=torch.zeros(1, n, 32),
        attention_mask=torch.ones(1, n, dtype=torch.long), cache=None, position_ids=torch.arange(n)[None],
        allow_is_causal_skip=False)


def t5_bias(decoder):
    torch.manual_seed(0)
    attn = T5Attention(T5Config(d_model=16, d_kv=8, num_heads=2, num_layers=1, vocab_size=50, is_decoder=decoder),
                       has_relative_attention_bias=True, layer_idx=0)
    torch.nn.init.normal_(attn.relative_attention_bias.weight)
    return attn.compute_bias(6, 6).detach()


def flax_masks():
    # imported by the tests that use them (collection stays light); Python 3.11+ only (pyproject)
    jnp = pytest.importorskip("jax.numpy")
    nn = pytest.importorskip("flax.linen")

    x, valid = jnp.ones((1, 6)), jnp.array([[1, 1, 1, 1, 0, 0]])
    causal, pad = nn.make_causal_mask(x), nn.make_attention_mask(valid, valid)
    masks = {"causal": causal, "pad": pad, "combined": nn.combine_masks(causal, pad)}
    return {name: torch.from_numpy(np.array(m)) for name, m in masks.items()}  # float32 1/0, (1, 1, 6, 6)


def keras_mask(pad):
    keras = pytest.importorskip("keras")
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    q = keras.ops.ones((1, 6, 8))
    real = keras.ops.convert_to_tensor(np.array([[True] * 4 + [False] * 2])) if pad else None
    m = mha._compute_attention_mask(q, q, query_mask=real, value_mask=real, use_causal_mask=True)
    return torch.as_tensor(keras.ops.convert_to_numpy(m))


def save(tmp_path, name, tensor):
    path = tmp_path / f"{name}.npy"
    np.save(path, np.asarray(tensor))
    return path


def read(path, **slice_):
    mask, info = load_mask(path, **slice_)
    return diagnose(mask, source=info)


def errors(d):
    return [f.code for f in d.findings if f.level == "error"]


GLOBAL0 = torch.zeros(16, dtype=torch.bool)
GLOBAL0[0] = True
IDS = {lengths: docs_ids(lengths) for lengths in ((5, 3, 8), (4, 4, 4, 4), (6, 10))}

#: name -> (how the library builds it, the family it must read as, what else must hold)
CORRECT = {
    "encoder-docs-5-3-8": (lambda: flex(lambda b, h, q, kv: IDS[5, 3, 8][q] == IDS[5, 3, 8][kv], 16),
                           "bidirectional-documents", {"documents": (5, 3, 8)}),
    "encoder-docs-4x4": (lambda: flex(lambda b, h, q, kv: IDS[4, 4, 4, 4][q] == IDS[4, 4, 4, 4][kv], 16),
                         "bidirectional-documents", {"documents": (4, 4, 4, 4)}),
    "encoder-docs-6-10": (lambda: flex(lambda b, h, q, kv: IDS[6, 10][q] == IDS[6, 10][kv], 16),
                          "bidirectional-documents", {"documents": (6, 10)}),
    "longformer": (lambda: flex(lambda b, h, q, kv: ((q - kv).abs() <= 2) | GLOBAL0[q] | GLOBAL0[kv], 16),
                   "global-window", {"globals": ((0, 1),), "window": 3, "right": 2}),
    "causal-window-global-key": (lambda: flex(lambda b, h, q, kv: (kv <= q) & ((q - kv < 3) | (kv == 0)), 12),
                                 "sink-window", {"globals": ((0, 1),), "window": 3}),
    "streamingllm-sinks": (lambda: flex(lambda b, h, q, kv: (kv <= q) & ((q - kv < 4) | (kv < 2)), 16),
                           "sink-window", {"globals": ((0, 2),), "window": 4}),
    "bart-cross-3x7-pad3": (lambda: bart_cross(3, 7, 3), "cross-attention", {"pad": 3}),
    "llama-causal": (lambda: llama_causal(6), "causal", {}),
    "mistral-window": (lambda: mistral_window(10, 3), "window", {"window": 3}),
    "llama-causal-eager": (lambda: llama_causal(6, "eager"), "causal", {}),
    "t5-bias-encoder": (lambda: t5_bias(False), "bidirectional", {}),
    "t5-bias-decoder-plus-mask": (lambda: t5_bias(True) + llama_causal(6, "eager"), "causal", {}),
    "bloom-alibi-plus-mask": (lambda: build_alibi_tensor(torch.ones(1, 6, dtype=torch.long), 2, torch.float32)
                              .view(1, 2, 1, 6) + llama_causal(6, "eager"), "causal", {}),
    "torch-square-subsequent": (lambda: torch.nn.Transformer.generate_square_subsequent_mask(6), "causal", {}),
    "mha-triu": (lambda: torch.triu(torch.ones(6, 6, dtype=torch.bool), 1), "causal", {"polarity": "blocked"}),
    "flax-causal": (lambda: flax_masks()["causal"], "causal", {}),
    "flax-attention-pad": (lambda: flax_masks()["pad"], "bidirectional", {"pad": 2, "pad_rows": True}),
    "flax-combine": (lambda: flax_masks()["combined"], "causal", {"pad": 2, "pad_rows": True}),
    "keras-causal": (lambda: keras_mask(False), "causal", {}),
    "keras-causal-pad": (lambda: keras_mask(True), "causal", {"pad": 2, "pad_rows": True}),
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_each_library_mask_reads_as_built_with_no_error(tmp_path, name):
    build, family, want = CORRECT[name]
    d = read(save(tmp_path, name, build()))
    assert (d.family, d.fit.comparison.count, errors(d)) == (family, 0, []), d.codes()
    assert d.polarity == want.get("polarity", "attend")
    for field in ("documents", "globals", "window", "pad", "pad_rows"):
        if field in want:
            assert getattr(d.rule, field) == want[field], field
    if "right" in want:
        assert d.rule.right_width == want["right"]
    assert d.leak_count == 0 and "pad-query-rows" not in [f.code for f in d.findings if f.level == "error"]


def test_cross_attention_with_encoder_pad_drops_no_decoder_row(tmp_path):
    # BART: 3 decoder queries over 7 encoder keys, 3 PAD. Not causal, and no "leave them out of the loss"
    d = read(save(tmp_path, "bart", bart_cross(3, 7, 3)))
    assert d.pad_query_row_count == 0 and "pad-query-rows" not in d.codes()
    assert not any("loss" in finding_message(f, d, "en") for f in d.findings)
    # 2 queries over 5 keys, 1 PAD: a decoder with a cache fits as simply; both are named, no row is dropped
    d = read(save(tmp_path, "bart2", bart_cross(2, 5, 1)))
    assert d.family == "cross-attention" and d.pad_query_row_count == 0
    readings = next(f for f in d.findings if f.code == "readings")
    assert readings.level == "warning" and "--expect" in finding_message(readings, d, "en")


def test_bert_right_pad_query_rows_are_the_pad_positions(tmp_path):
    m = mu.create_bidirectional_mask(config=tiny_config(None, "sdpa"), inputs_embeds=torch.zeros(2, 6, 32),
                                     attention_mask=torch.tensor([[1] * 6, [1, 1, 1, 1, 0, 0]]),
                                     allow_is_bidirectional_skip=False)
    d = read(save(tmp_path, "bert", m), batch=1, head=0)
    assert (d.family, d.pad_keys, d.pad_query_rows) == ("bidirectional", (4, 6), (4, 5))
    (finding,) = [f for f in d.findings if f.code == "pad-query-rows"]
    assert finding.level == "info" and "one sequence" in finding_message(finding, d, "en")


def test_modernbert_local_layer_with_right_pad(tmp_path):
    # ModernBERT's sliding layers: create_bidirectional_sliding_window_mask, |q - k| <= 2, 2 PAD at the end
    m = mu.create_bidirectional_sliding_window_mask(
        config=tiny_config(None, "sdpa", sliding_window=2), inputs_embeds=torch.zeros(1, 9, 32),
        attention_mask=torch.tensor([[1] * 7 + [0] * 2]), allow_is_bidirectional_skip=False)
    d = read(save(tmp_path, "modernbert-pad", m))
    assert (d.family, d.fit.comparison.count, errors(d)) == ("two-sided-window", 0, [])
    assert (d.rule.window - 1, d.rule.right_width, d.pad_keys, d.pad_query_rows) == (2, 2, (7, 9), (7, 8))


def test_modernbert_local_window_json_says_two_sided(tmp_path, capsys):
    cfg = tiny_config(None, "sdpa", sliding_window=2)
    m = mu.create_bidirectional_sliding_window_mask(config=cfg, inputs_embeds=torch.zeros(1, 9, 32),
                                                    attention_mask=torch.ones(1, 9, dtype=torch.long),
                                                    allow_is_bidirectional_skip=False)
    import json

    assert main(["doctor", str(save(tmp_path, "modernbert", m)), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # |q - k| <= 2: two-sided, half-width 2, 5 keys per row (not an ambiguous "window 3")
    assert (doc["family"], doc["window_kind"], doc["window_half_width"], doc["window"]) == \
        ("two-sided-window", "two-sided", 2, 5)
    assert (doc["window_left"], doc["window_right"]) == (2, 2)


def test_biases_are_called_biases_never_leaks(tmp_path):
    d = read(save(tmp_path, "t5", t5_bias(False)))
    assert d.representation.kind == "bias" and "bias" in d.codes() and d.leak_count == 0
    alibi = build_alibi_tensor(torch.tensor([[0, 1, 1, 1, 1, 1]]), 4, torch.float32)  # (heads, 1, S): a bias only
    d = read(save(tmp_path, "alibi", alibi), batch=3)
    assert d.representation.kind == "bias" and d.pad_keys is None and errors(d) == []
    d = read(save(tmp_path, "t5-masked", t5_bias(True) + llama_causal(6, "eager")))
    assert d.representation.kind == "bias-mask" and d.leak_count == 0
    assert "bias + mask" in finding_message(next(f for f in d.findings if f.code == "bias"), d, "en")


PLANTED = {
    # name -> (the correct mask, the cell planted, the finding that must name it)
    "llama-next-token": (lambda: llama_causal(8), (2, 3), "leak"),
    "flax-combine-leak": (lambda: flax_masks()["combined"], (1, 2), "leak"),
    "encoder-docs-cross": (CORRECT["encoder-docs-5-3-8"][0], (1, 5), "closest-rule"),
    "encoder-docs-back": (CORRECT["encoder-docs-5-3-8"][0], (6, 2), "closest-rule"),  # a row of doc 1 sees doc 0
    "longformer-wide": (CORRECT["longformer"][0], (12, 15), "closest-rule"),
    "sinks-leak": (CORRECT["streamingllm-sinks"][0], (9, 10), "leak"),
    "sinks-window-off-by-one": (CORRECT["streamingllm-sinks"][0], (10, 6), "closest-rule"),
    "keras-leak": (lambda: keras_mask(False), (3, 4), "leak"),
    "t5-bias-decoder-leak": (CORRECT["t5-bias-decoder-plus-mask"][0], (2, 4), "leak"),
    "mistral-window-off-by-one": (lambda: mistral_window(10, 3), (6, 3), "closest-rule"),  # row 6 keeps 4 keys
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_planted_defect_is_caught_with_its_cell(tmp_path, name):
    build, cell, code = PLANTED[name]
    m = build().clone()
    m[(0,) * (m.dim() - 2) + cell] = 1
    path = save(tmp_path, name, m)
    d = read(path)
    (finding,) = [f for f in d.findings if f.code == code]
    assert finding.level == "error" and cell in finding.cells
    assert main(["doctor", str(path), "--strict"]) == 1


def test_a_single_next_token_leak_is_not_an_image_block(tmp_path):
    m = torch.ones(8, 8, dtype=torch.bool).tril()
    m[2, 3] = True
    d = read(save(tmp_path, "leak", m))
    assert d.family == "causal" and d.leak_count == 1 and d.leaks == ((2, 3),) and "blocks" not in d.codes()


def _check_line(capsys, path, *extra):
    assert main(["doctor", str(path), *extra]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("To check this reading")]
    return lines[0].split("maskattn-tui ", 1)[1] if lines else None


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_the_printed_check_line_passes_on_its_file(tmp_path, capsys, name):
    tensor = CORRECT[name][0]()
    for path in (save(tmp_path, name, tensor), tmp_path / f"{name}.pt"):
        if path.suffix == ".pt":  # a dict .pt: the line needs --key
            torch.save({"attn_mask": tensor.contiguous()}, path)
        line = _check_line(capsys, path)
        if line is None:
            continue  # a reading --expect cannot state prints no line
        assert main(shlex.split(line)) == 0, line
        if path.suffix == ".pt":
            assert "--key attn_mask" in line
        if CORRECT[name][2].get("polarity") == "blocked":
            assert "--polarity blocked" in line


def test_check_lines_are_printed_for_the_families_expect_states(tmp_path, capsys):
    for name in ("encoder-docs-5-3-8", "bart-cross-3x7-pad3", "mha-triu", "flax-causal", "torch-square-subsequent"):
        assert _check_line(capsys, save(tmp_path, name, CORRECT[name][0]())) is not None, name


def test_findings_expect_strict_and_against_agree_on_a_float_keep_mask(tmp_path, capsys):
    flax_causal = save(tmp_path, "flax", flax_masks()["causal"])
    as_bool = save(tmp_path, "bool", np.tril(np.ones((1, 1, 6, 6), dtype=bool)))
    # kept (the default names both readings at warning level): every verdict says "causal, correct"
    d = read(flax_causal)
    (keep,) = [f for f in d.findings if f.code == "float-keep-mask"]
    assert keep.level == "warning" and errors(d) == []
    verdicts = [main(["doctor", str(flax_causal), "--strict"]),
                main(["doctor", str(flax_causal), "--expect", "--past", "0", "--new", "6"]),
                main(["doctor", str(flax_causal), "--against", str(as_bool)])]
    assert verdicts == [0, 0, 0]
    # added to the scores: every verdict says "masks nothing"
    verdicts = [main(["doctor", str(flax_causal), "--strict", "--float-mask", "added"]),
                main(["doctor", str(flax_causal), "--expect", "--past", "0", "--new", "6", "--float-mask", "added"]),
                main(["doctor", str(flax_causal), "--against", str(as_bool), "--float-mask", "added"])]
    assert verdicts == [1, 1, 1]
    capsys.readouterr()


def test_advice_whose_fixed_table_is_broken_is_asked_not_told(tmp_path):
    m = np.tril(np.ones((8, 8), dtype=bool))
    m[2, 5] = True   # a leak ...
    m[6, 1] = False  # ... and a hidden past cell: hiding the leak alone leaves a table no family reads
    d = read(save(tmp_path, "two", m))
    leak = next(f for f in d.findings if f.code == "leak")
    fixed, sound = fixed_of(leak)
    assert not sound and fixed.fit.comparison.count == 1
    assert leak.level == "warning" and finding_message(leak, d, "en").startswith("if causal was meant, then:")
    assert errors(d) == ["closest-rule"] and (6, 1) in d.findings[d.codes().index("closest-rule")].cells
    # a fix that reads cleanly is told as it is, at error level
    m[6, 1] = True
    d = read(save(tmp_path, "one", m))
    leak = next(f for f in d.findings if f.code == "leak")
    assert fixed_of(leak)[1] and leak.level == "error" and not finding_message(leak, d, "en").startswith("if ")


def test_counts_of_one_are_singular():
    assert singular_counts("1 keys, 1 cells, 1 query rows are PAD (rows 0)") == "1 key, 1 cell, 1 query row is PAD (row 0)"
    assert singular_counts("11 keys, 1,024 cells, 0.1 rows, rows 0-3") == "11 keys, 1,024 cells, 0.1 rows, rows 0-3"


def test_both_languages_name_the_new_readings(tmp_path, capsys):
    for name in ("encoder-docs-5-3-8", "longformer", "streamingllm-sinks", "t5-bias-decoder-plus-mask"):
        path = save(tmp_path, name, CORRECT[name][0]())
        for lang in ("en", "zh"):
            assert main(["doctor", str(path), "--lang", lang]) == 0
            out = capsys.readouterr().out
            assert ("规则" in out) == (lang == "zh") and "[" in out


def test_per_head_masks_and_per_head_biases_are_told_apart(tmp_path, capsys):
    per_head = flex(lambda b, h, q, kv: (kv <= q) & ((h == 0) | (q - kv < 3)), 8, heads=2)  # head 1: a window
    assert main(["doctor", str(save(tmp_path, "heads", per_head))]) == 0
    out = capsys.readouterr().out
    assert "head 1: sliding window, 3 keys" in out and "a per-head mask" in out
    alibi = build_alibi_tensor(torch.ones(1, 6, dtype=torch.long), 4, torch.float32)  # 4 heads, 4 slopes
    assert main(["doctor", str(save(tmp_path, "alibi", alibi)), "--strict"]) == 0
    out = capsys.readouterr().out
    assert "4 distinct" in out and "differ only in their values" in out and "a bias" in out


def test_equal_readings_with_the_same_consequences_are_information(tmp_path):
    # a BERT-style [B, 1, 1, S] mask without PAD: causal decode step or key padding, nothing differs
    d = read(save(tmp_path, "one", torch.zeros(1, 1, 1, 6)))
    readings = [f for f in d.findings if f.code == "readings"]
    assert all(f.level == "info" for f in readings) and errors(d) == []


def test_polarity_is_one_for_the_whole_set_of_slices(tmp_path, capsys):
    import json

    # nn.MultiheadAttention masks for two batch items, the second fully masked (True = blocked):
    # alone it would read True = attend (all visible); with the first, the set is True = blocked
    mha = torch.stack([torch.triu(torch.ones(4, 4, dtype=torch.bool), 1), torch.ones(4, 4, dtype=torch.bool)])
    assert main(["doctor", str(save(tmp_path, "mha", mha[:, None])), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["polarity"] == "blocked" and [s["polarity"] for s in doc["slices"]] == ["blocked", "blocked"]
    assert doc["slices"][1]["empty_row_count"] == 4
    # BERT-style key padding, one item all PAD: each slice stays True = attend
    pad = torch.tensor([[1, 1, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0], [1] * 6], dtype=torch.bool)[:, None, None, :]
    assert main(["doctor", str(save(tmp_path, "bert", pad)), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["polarity"] for s in doc["slices"]] == ["attend"] * 3


def test_the_grammar_helper_leaves_expressions_and_templates_alone():
    from maskattn_tui.i18n import catalog

    for text in ("W + 1 keys", "w+1 keys", "F1 scores", "0/1 rows", "the cached keys 0)", "(rows 0-3)"):
        assert singular_counts(text) == text
    # no string of the catalogue has a literal count of one that the helper would change
    assert [k for k, v in catalog().items() if singular_counts(v["en"]) != v["en"]] == []


def test_each_fix_that_changes_a_mask_carries_its_table_read_clean(tmp_path):
    from torch.nn.attention.bias import causal_upper_left

    square = torch.nn.Transformer.generate_square_subsequent_mask(5)  # 0 / -inf
    swapped = torch.where(square == 0, float("-inf"), 0.0)  # the polarity mixed up
    cases = {"inverted": swapped, "top-left": causal_upper_left(2, 6)._materialize(torch.device("cpu")),
             "true-means-blocked": torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)}
    for code, mask in cases.items():
        d = read(save(tmp_path, code, mask))
        (finding,) = [f for f in d.findings if f.code == code]
        checked = fixed_of(finding)
        if finding.level == "info":  # information advises nothing to check
            assert checked is None
            continue
        fixed, sound = checked
        assert sound and (fixed.family, fixed.fit.comparison.count) == ("causal", 0), code
        assert fixed.alignment.alignment == "bottom-right"


def test_a_mask_mod_with_sinks_or_global_tokens_is_read_by_tiles(tmp_path, capsys):
    (tmp_path / "mods.py").write_text(
        "import torch\n"
        "G = torch.zeros(512, dtype=torch.bool); G[0] = True; G[100] = True\n"
        "def sinks(b, h, q, kv):\n    return (kv <= q) & ((q - kv < 8) | (kv < 4))\n"
        "def longformer(b, h, q, kv):\n    return ((q - kv).abs() <= 16) | G[q] | G[kv]\n")
    for name, words in (("sinks", "with sink keys 0-3"), ("longformer", "with global tokens 0, 100")):
        assert main(["doctor", f"{tmp_path / 'mods.py'}:{name}", "--q-len", "512", "--kv-len", "512"]) == 0
        assert words in capsys.readouterr().out


def test_float_mask_is_refused_where_it_means_nothing(tmp_path, capsys):
    (tmp_path / "capture").mkdir()
    for argv in (["--attention-mask", "1,1,0"], [str(tmp_path / "capture")]):
        assert main(["doctor", *argv, "--float-mask", "keep"]) == 2
        err = capsys.readouterr().err
        assert "--float-mask is for a saved mask file" in err and "Traceback" not in err
