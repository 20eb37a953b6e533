"""The probe on tiny random-weight models (2 layers, hidden 32, 12 tokens;
built from configs, nothing downloaded): correct models hold every
invariance that applies; each planted bug is found by the invariance it
breaks, at the layer where it was planted, with the captured call whose
mask differs; differences checked against the model run directly."""

import json

import pytest
from helpers import run_main

from maskattn_tui.probe.report import lines

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import torch.nn.functional as F  # noqa: E402
from transformers import AttentionInterface  # noqa: E402
from transformers.integrations.sdpa_attention import sdpa_attention_forward  # noqa: E402
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask  # noqa: E402

from maskattn_tui import probe  # noqa: E402
from maskattn_tui.cli import main  # noqa: E402

SMALL = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
             max_position_embeddings=64)


def build(kind: str, impl: str = "sdpa"):
    from transformers import (AutoModel, AutoModelForCausalLM, BertConfig, Gemma3TextConfig, GPT2Config,
                              LlamaConfig, MistralConfig)

    torch.manual_seed(0)
    if kind == "llama":
        config = LlamaConfig(**SMALL, num_key_value_heads=2, attn_implementation=impl)
    elif kind == "mistral":
        config = MistralConfig(**SMALL, num_key_value_heads=2, sliding_window=4, attn_implementation=impl)
    elif kind == "gemma3":
        config = Gemma3TextConfig(**SMALL, num_key_value_heads=2, head_dim=8, sliding_window=4,
                                  layer_types=["sliding_attention", "full_attention"], attn_implementation=impl)
    elif kind == "gpt2":
        config = GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=64, attn_implementation=impl)
    elif kind == "roberta":
        from transformers import RobertaConfig

        return AutoModel.from_config(RobertaConfig(**SMALL, pad_token_id=1, attn_implementation=impl)).eval()
    else:
        config = BertConfig(**SMALL, attn_implementation=impl)
        return AutoModel.from_config(config).eval()
    return AutoModelForCausalLM.from_config(config).eval()


IDS = torch.randint(1, 64, (1, 12), generator=torch.Generator().manual_seed(1))


def located_call(report, name: str) -> dict:
    """The JSON of the call a broken invariance was located at."""
    data = next(i for i in report.to_json()["invariances"] if i["name"] == name)
    return next(c for c in data["cases"] if c["location"])["location"]["call"]


def statuses(report) -> dict:
    return {r.name: r.status for r in report.results}


@pytest.mark.parametrize("kind,impl", [("llama", "sdpa"), ("llama", "eager"), ("mistral", "sdpa"),
                                       ("gemma3", "sdpa"), ("gpt2", "sdpa")])
def test_correct_decoders_hold_every_invariance(kind, impl):
    report = probe(build(kind, impl), IDS)
    assert statuses(report) == dict.fromkeys(("future", "cache", "padding", "chunked", "packing", "backends"), "held")
    assert report.exit_code == 0 and report.folder is None  # nothing captured: nothing broke
    for r in report.results:  # every figure stated, each under its tolerance of 1e-5 x the outputs' scale
        assert r.cases and all(0 <= c.max_diff <= c.tolerance == pytest.approx(1e-5 * c.scale) for c in r.cases)
    assert [c.name for c in report["cache"].cases] == ["dynamic", "static"]
    assert [c.name for c in report["padding"].cases] == ["left", "right"]


@pytest.mark.parametrize("kind", ["bert", "roberta"])
def test_an_encoder_is_probed_for_padding_and_says_why_the_rest_is_skipped(kind):
    # RoBERTa derives its positions from its padding index unless given them: the probe gives
    # every padding run explicit ones (left padding was a false alarm without)
    report = probe(build(kind), IDS)
    assert statuses(report) == {"future": "skipped", "cache": "skipped", "padding": "held", "chunked": "skipped",
                                "packing": "skipped", "backends": "held"}
    assert report["future"].reason[0] == "probe.skip.encoder_future"
    assert report["packing"].reason[0] == "probe.skip.encoder_packing"
    assert "later tokens" in str(report)


class AllVisible(torch.nn.Module):
    """The Doge pattern (transformers #48748): a causal model handed its own
    4-D mask with no causal term (transformers uses a 4-D mask as given)."""

    def __init__(self, inner):
        super().__init__()
        self.inner, self.config = inner, inner.config

    def forward(self, input_ids, attention_mask=None, position_ids=None, cache=None, use_cache=None):
        keys = input_ids.shape[1] + (cache.get_seq_length() if cache is not None else 0)
        visible = torch.ones(input_ids.shape[0], 1, input_ids.shape[1], keys, dtype=torch.bool)
        return self.inner(input_ids=input_ids, attention_mask=visible, position_ids=position_ids, cache=cache,
                          use_cache=use_cache)


def test_an_all_visible_mask_breaks_the_future_invariance_from_layer_0(tmp_path):
    model = AllVisible(build("llama"))
    report = probe(model, IDS, keep=tmp_path, only="future")
    case = report["future"].cases[0]
    assert report["future"].status == "broken" and report.exit_code == 1 and case.first_position == 0
    # the figure, made again here: tokens after t changed, logits at <= t compared
    t = int(case.name.split("=")[1])
    changed = IDS.clone()
    changed[0, t + 1:] = (IDS[0, t + 1:] + 1) % 64
    with torch.no_grad():
        a, b = model(IDS).logits[0, :t + 1], model(changed).logits[0, :t + 1]
    assert (a - b).abs().max() > 100 * case.tolerance  # any change of the future moves the past this much
    assert case.max_diff > 100 * case.tolerance
    where = case.location
    assert where["layer"]["module"] == "inner.model.layers.0.self_attn" and where["layer"]["position"] == 0
    assert where["same_masks"]  # both runs got the same (leaky) table: it is the table itself
    assert where["call"]["site"] == "inner.model.layers.0.self_attn"
    text = str(report)
    command = f"maskattn-tui --mask {tmp_path}/future-0/b --call {where['call']['call']}"
    assert "bidirectional" in text and command in text
    assert (tmp_path / "future-0" / "a" / "capture.json").is_file()
    # the printed command opens that call's table: print --mask with its options shows the call it names
    done = run_main("print", *command.split()[1:], "--width", "120")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    layer = [c for c in json.load(open(tmp_path / "future-0" / "b" / "capture.json"))["calls"]
             if c["call"] == where["call"]["call"]][0].get("within", where["call"]["call"])
    assert done.stdout.startswith(f"call {layer} (") and "inner.model.layers.0.self_attn" in done.stdout


def causal_always(module, query, key, value, attention_mask, scaling=None, **kw):
    """A custom attention whose every call says is_causal=True, the decode
    step over the cache too (top-left: the new query sees key 0 only)."""
    rep = query.shape[1] // key.shape[1]
    out = F.scaled_dot_product_attention(query, key.repeat_interleave(rep, 1), value.repeat_interleave(rep, 1),
                                         is_causal=True, scale=scaling)
    return out.transpose(1, 2).contiguous(), None


def widen_layer_1(module, query, key, value, attention_mask, **kw):
    """The window one key too wide, in layer 1 only: each row also sees the
    key left of its first visible one."""
    if module.layer_idx == 1 and attention_mask is not None:
        wider = attention_mask.clone()
        wider[..., :-1] |= attention_mask[..., 1:]
        attention_mask = wider
    return sdpa_attention_forward(module, query, key, value, attention_mask, **kw)


def drop_right_padding(module, query, key, value, attention_mask, **kw):
    """Rows whose last key is PAD (right-padded) lose their padding mask."""
    if attention_mask is not None:
        attention_mask = attention_mask.clone()
        attention_mask[~attention_mask[:, 0, 0, -1]] = True
    return sdpa_attention_forward(module, query, key, value, attention_mask, **kw)


for _name, _fn in (("probe_causal_always", causal_always), ("probe_widen_layer_1", widen_layer_1),
                   ("probe_drop_right", drop_right_padding)):
    AttentionInterface.register(_name, _fn)
    AttentionMaskInterface.register(_name, sdpa_mask)


def test_is_causal_over_the_cache_breaks_the_cache_invariance_at_the_first_decode_step(tmp_path):
    model = build("llama", "probe_causal_always")
    report = probe(model, IDS, keep=tmp_path, only="future,cache")
    assert statuses(report)["future"] == "held"
    case = report["cache"].cases[0]
    assert report["cache"].status == "broken" and case.name == "dynamic"
    assert case.first_position == 8 and case.moved == 4  # prefill 0-7 agrees; every decode step moves
    where = case.location
    assert where["layer"] == {**where["layer"], "module": "model.layers.0.self_attn", "position": 8}
    call = where["call"]
    assert call["site"] == "model.layers.0.self_attn" and call["positions"] == [8]
    assert located_call(report, "cache")["step"] == "decode 8"
    assert call["only_a"] == list(range(1, 9)) and call["only_b"] == []  # top-left: key 0 only
    # capture checked each layer call against its own intent (create_causal_mask over the cache): a decode
    # query at position q meant to see keys 0..q sees key 0 only (torch's is_causal is top-left), so it
    # hides q keys: q = 8..11 over 2 layers
    [differs] = where["findings"]["b"]
    assert differs["code"] == "intent-differs" and differs["level"] == "error"
    assert differs["params"]["count"] == 2 * sum(range(8, 12))
    first = [(c["q"], c["k"]) for c in differs["cells"] if c["layer"] == 0 and c["q"] == 8]
    assert first == [(8, k) for k in range(1, 9)] and not any(c["seen"] for c in differs["cells"])
    # the decode step, made again here: one forward vs prefill + one step
    from transformers import DynamicCache

    with torch.no_grad():
        full = model(IDS, use_cache=False).logits[0, 8]
        cache = DynamicCache(config=model.config)
        model(IDS[:, :8], cache=cache)
        step = model(IDS[:, 8:9], cache=cache).logits[0, 0]
    assert float((full - step).abs().max()) > 100 * case.tolerance


def test_a_window_one_too_wide_in_layer_1_is_named_at_layer_1_not_0(tmp_path):
    report = probe(build("mistral", "probe_widen_layer_1"), IDS, keep=tmp_path, only="future,cache")
    assert statuses(report)["future"] == "held"  # the window widens into the past only
    case = report["cache"].cases[0]
    assert report["cache"].status == "broken" and case.first_position == 8
    where = case.location
    assert where["layer"]["module"] == "model.layers.1.self_attn"
    call = where["call"]
    assert call["site"] == "model.layers.1.self_attn" and located_call(report, "cache")["step"] == "decode 8"
    assert call["only_a"] == [4] and call["only_b"] == []  # one forward: keys 4-8; the sliding cache: 5-8
    data = report.to_json()
    located = data["invariances"][1]["cases"][0]["location"]["call"]
    assert "5 keys" in located["a_reading"] and "4 keys" not in located["a_reading"]


class DefaultCache(torch.nn.Module):
    """A training wrapper that drops use_cache: a packed row then runs with
    the default cache, where transformers builds no block-diagonal mask."""

    def __init__(self, inner):
        super().__init__()
        self.inner, self.config = inner, inner.config

    def forward(self, input_ids, attention_mask=None, position_ids=None, cache=None, use_cache=None):
        return self.inner(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, cache=cache)


def test_a_packed_row_with_the_default_cache_breaks_packing_at_the_second_document(tmp_path):
    report = probe(DefaultCache(build("llama")), IDS, keep=tmp_path)
    assert {n for n, s in statuses(report).items() if s == "broken"} == {"packing"}
    case = report["packing"].cases[0]
    assert case.first_position == 4 and case.moved == 8  # documents of 4: the first one is alone either way
    call = case.location["call"]
    assert case.location["layer"]["module"] == "inner.model.layers.0.self_attn"
    assert call["only_b"] == [0, 1, 2, 3] and call["positions"][0] == 4
    assert "packed-leak" in {f["code"] for f in case.location["findings"]["b"]}


def test_a_dropped_padding_mask_for_right_padded_rows_breaks_padding_right_only(tmp_path):
    report = probe(build("bert", "probe_drop_right"), IDS, keep=tmp_path)
    padding = report["padding"]
    assert padding.status == "broken" and [c.status for c in padding.cases] == ["held", "broken"]
    right = padding.cases[1]
    assert right.location["layer"]["module"] == "encoder.layer.0.attention"
    assert right.location["call"]["only_b"] == ["other"]
    assert "PAD / another row" in str(report)


CONFIG = {"model_type": "llama", **SMALL, "num_key_value_heads": 2}


def test_the_command_probes_a_config_and_writes_json(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    assert main(["probe", "--config", str(path), "--json", "--only", "future,padding"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "maskattn-probe/1" and data["held"] == 2 and data["exit"] == 0
    assert [i["status"] for i in data["invariances"]] == ["held", "skipped", "held", "skipped", "skipped", "skipped"]
    assert main(["probe", "--config", str(path), "--lang", "zh", "--only", "cache"]) == 0
    assert "成立" in capsys.readouterr().out


PLANTED = '''
import torch
from transformers import LlamaConfig, LlamaForCausalLM

class AllVisible(torch.nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner, self.config = inner, inner.config
    def forward(self, input_ids, attention_mask=None, position_ids=None, cache=None, use_cache=None):
        n = input_ids.shape[1]
        visible = torch.ones(input_ids.shape[0], 1, n, n, dtype=torch.bool)
        return self.inner(input_ids=input_ids, attention_mask=visible, use_cache=False)

def leaky():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2)
    return AllVisible(LlamaForCausalLM(config).eval()), torch.arange(1, 13)[None]

def broken():
    raise SystemExit(3)
'''


def test_the_command_runs_a_function_of_the_users_file(tmp_path, capsys):
    script = tmp_path / "model.py"
    script.write_text(PLANTED)
    keep = tmp_path / "runs"
    assert main(["probe", f"{script}:leaky", "--only", "future", "--keep", str(keep)]) == 1
    out = capsys.readouterr().out
    assert "BROKEN" in out and "inner.model.layers.0.self_attn" in out and str(keep) in out
    assert main(["probe", f"{script}:broken"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "broken()" in err and "SystemExit" in err
    (tmp_path / "taken").write_text("mine")  # --keep naming a file: refused before anything runs
    assert main(["probe", f"{script}:leaky", "--keep", str(tmp_path / "taken")]) == 2
    assert "not a folder" in capsys.readouterr().err and (tmp_path / "taken").read_text() == "mine"


@pytest.mark.parametrize("argv,needle", [
    (["probe"], "exactly one"),
    (["probe", "--config", "missing.json"], "missing.json"),
    (["probe", "--config", "x.json", "--model", "d"], "exactly one"),
    (["probe", "--replay", "d", "--only", "future"], "--only"),
    (["probe", "--model", "no-such-folder"], "no-such-folder"),
])
def test_bad_input_is_one_line_and_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_only_refuses_an_unknown_name(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    assert main(["probe", "--config", str(path), "--only", "future,leaks"]) == 2
    assert "leaks" in capsys.readouterr().err


def test_the_command_probes_a_local_folder_offline(tmp_path, capsys):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=64)).save_pretrained(
        tmp_path / "gpt2")
    assert main(["probe", "--model", str(tmp_path / "gpt2"), "--only", "padding,cache", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"] == "GPT2LMHeadModel" and data["held"] == 2


def test_help_and_a_bad_line_load_no_torch():
    import subprocess
    import sys

    code = ("import sys, io, contextlib\nfrom maskattn_tui.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            "    for argv in (['probe', '--help'], ['probe'], ['probe', '--only', 'x', '--config', 'c.json']):\n"
            "        try:\n            main(argv)\n        except SystemExit:\n            pass\n"
            "print('torch' in sys.modules, 'textual' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_a_model_that_cannot_make_the_first_forward_is_bad_input():
    from maskattn_tui.errors import MaskattnError

    class Broken(torch.nn.Module):
        def forward(self, input_ids):
            raise RuntimeError("shape mismatch in my layer")

    with pytest.raises(MaskattnError, match="shape mismatch in my layer"):
        probe(Broken(), IDS)


def test_float64_holds_with_eagers_float32_softmax_inside_its_tolerance(tmp_path, capsys):
    # transformers' eager attention takes its softmax in float32 whatever the dtype: eager vs
    # sdpa differ by ~2e-8 in float64, within 1e-6 x the scale, far from a leak's 1e-2
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    assert main(["probe", "--config", str(path), "--dtype", "float64", "--only", "backends", "--json"]) == 0
    (case,) = json.loads(capsys.readouterr().out)["invariances"][5]["cases"]
    assert 1e-10 < case["max_diff"] <= case["tolerance"] and case["rtol"] == 1e-6



def test_the_report_in_a_notebook_is_its_printed_lines_coloured_by_status(tmp_path, monkeypatch):
    """_repr_html_: every printed line's words and numbers are in the HTML, in
    both languages; the broken invariance's line has another colour than the
    skipped one's (the status word is on each line: colour is never alone)."""
    import html as html_lib
    import re

    report = probe(AllVisible(build("llama")), IDS, only=("future",), keep=str(tmp_path))
    assert statuses(report)["future"] == "broken" and statuses(report)["backends"] == "skipped"
    for lang in ("en", "zh"):
        page = report.to_html(lang)
        monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8" if lang == "zh" else "C.UTF-8")
        assert report._repr_html_() == page  # Jupyter's call: the environment's language
        flat = re.sub(r"\s+", "", html_lib.unescape(re.sub(r"<[^>]+>", "", page)))
        for line in lines(report, lang):
            assert re.sub(r"\s+", "", line) in flat, line
    styles = dict((name, style) for style, name in
                  re.findall(r'<span style="([^"]*)">\s*(future|backends)\b', report.to_html("en")))
    assert styles.keys() == {"future", "backends"} and styles["future"] != styles["backends"]


def test_the_padded_batchs_head_makes_the_compared_row_alone_with_the_same_values():
    from maskattn_tui.probe import runs as R
    from maskattn_tui.probe.execute import execute
    from maskattn_tui.probe.model_io import ModelIO

    model = build("llama")
    io = ModelIO(model)
    run = R.padding(IDS, io.pad_id, 64, torch.Generator().manual_seed(0), True)[0].b  # left-padded, batch of 2
    rows = []
    model.lm_head.register_forward_hook(lambda module, args, out: rows.append(out.shape[0]))
    got = execute(io, run)
    step = run.steps[0]
    with torch.no_grad():
        whole = model(input_ids=step.input_ids, attention_mask=step.attention_mask,
                      position_ids=step.position_ids).logits
    assert rows == [1, 2]  # the probe's head made one row; transformers' own call both
    assert torch.equal(got, whole[0, [q for _, _, q in run.slots]])


class ReshapedByBatch(torch.nn.Module):
    """A model that reshapes its logits by the batch size it was given: its
    head cannot be given one row (the output comes back [2, T, V/2])."""

    def __init__(self):
        super().__init__()
        self.inner = build("llama")
        self.config = self.inner.config

    def get_output_embeddings(self):
        return self.inner.lm_head

    def forward(self, input_ids, attention_mask=None, position_ids=None, use_cache=None):
        logits = self.inner(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                            use_cache=use_cache).logits
        return logits.reshape(input_ids.shape[0], input_ids.shape[1], -1)


def test_a_head_that_needs_the_whole_batch_is_run_whole_with_the_same_numbers():
    def padding(model):
        return [(c.status, c.max_diff, c.first_position) for c in probe(model, IDS, only="padding")["padding"].cases]

    model = ReshapedByBatch()
    slim = padding(model)
    model.get_output_embeddings = lambda: None  # no head to give one row: every forward whole
    assert slim == padding(model) and [s for s, _, _ in slim] == ["held", "held"]
