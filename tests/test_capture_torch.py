"""Capture of plain PyTorch attention: nn.TransformerDecoder (attn_mask +
key_padding_mask), FlexAttention on CPU with a document mask_mod and a
BlockMask whose block lists were made for another block size, the
decode-step is_causal=True bug, threads, a forked child, an exception
inside capture, and the distinct-mask store."""

import os
import threading

import numpy as np
import warnings

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from maskattn_tui.capture.findings import cross_call, primary  # noqa: E402
from maskattn_tui.capture.folder import load  # noqa: E402
from maskattn_tui.capture.table_files import mask_path  # noqa: E402
from maskattn_tui.cli import main  # noqa: E402


def capture(folder):
    from maskattn_tui import capture as start

    return start(folder)


def table(folder, call, b=0, h=0):
    mask = call["mask"]
    return np.load(mask_path(folder, mask["hashes"][min(b, mask["batch"] - 1)][min(h, mask["heads"] - 1)]))


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")  # float causal + bool padding
def test_transformer_decoder_masks_and_their_merge(tmp_path):
    torch.manual_seed(0)
    layer = torch.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
    decoder = torch.nn.TransformerDecoder(layer, num_layers=2).eval()
    tgt, memory = torch.randn(2, 4, 8), torch.randn(2, 5, 8)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(4)
    padding = torch.tensor([[False, False, False, True], [False, False, False, False]])
    run = lambda: decoder(tgt, memory, tgt_mask=causal, tgt_key_padding_mask=padding)  # noqa: E731
    with torch.no_grad():
        plain = run()
        with capture(tmp_path) as cap:
            captured = run()
    assert torch.equal(plain, captured)
    calls = [c for c in cap.calls if c["kind"] == "mha"]
    # each layer: self-attention (causal + padding) then cross-attention (no mask)
    assert [c["site"] for c in calls] == ["layers.0.self_attn", "layers.0.multihead_attn",
                                          "layers.1.self_attn", "layers.1.multihead_attn"]
    self_attn = calls[0]
    assert self_attn["attn_mask"]["shape"] == [4, 4] and self_attn["key_padding_mask"]["shape"] == [2, 4]
    for b in range(2):
        seen = table(tmp_path, self_attn, b) == 0
        q, k = np.arange(4)[:, None], np.arange(4)[None, :]
        assert np.array_equal(seen, (k <= q) & ~padding[b].numpy()[None, :])
    assert (calls[1]["q_len"], calls[1]["k_len"]) == (4, 5)
    assert np.all(table(tmp_path, calls[1]) == 0)
    assert cross_call(cap.calls, {}) == []
    # memory as long as the target: self- and cross-attention still not "layers that should share a mask"
    with torch.no_grad(), capture(tmp_path / "equal") as cap:
        decoder(tgt, torch.randn(2, 4, 8), tgt_mask=causal, tgt_key_padding_mask=padding)
    assert [(c["q_len"], c["k_len"]) for c in cap.calls] == [(4, 4)] * 4
    assert cross_call(cap.calls, {}) == []
    # the merged table is what the softmax saw: weights > 0 exactly where it is 0
    mha = decoder.layers[0].self_attn
    with torch.no_grad():
        _, weights = mha(tgt, tgt, tgt, attn_mask=causal, key_padding_mask=padding, need_weights=True,
                         average_attn_weights=False)
    for b in range(2):
        assert np.array_equal(weights[b, 0].numpy() > 0, table(tmp_path, self_attn, b) == 0)


def _document_mod(documents):
    def mask_mod(b, h, q_idx, kv_idx):
        return (documents[q_idx] == documents[kv_idx]) & (q_idx >= kv_idx)
    return mask_mod


@pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")
def test_flex_attention_document_mask(tmp_path, capsys):
    from torch.nn.attention.flex_attention import create_block_mask, create_mask, flex_attention

    torch.manual_seed(0)
    documents = torch.tensor([0, 0, 0, 1, 1, 1, 1, 1])
    mod = _document_mod(documents)
    block = create_block_mask(mod, None, None, 8, 8, device="cpu")
    q = torch.randn(1, 2, 8, 4)
    plain = flex_attention(q, q, q, block_mask=block)
    with capture(tmp_path) as cap:
        captured = flex_attention(q, q, q, block_mask=block)
        captured2 = flex_attention(q, q, q, block_mask=block)
    assert torch.equal(plain, captured) and torch.equal(plain, captured2)
    flex = [c for c in cap.calls if c["kind"] == "flex"]
    assert len(flex) == 2
    assert flex[0]["block_mask"]["seq_lengths"] == [8, 8] and flex[0]["block_mask"]["block_size"] == [128, 128]
    want = create_mask(mod, 1, 1, 8, 8, device="cpu")[0, 0].numpy()
    assert np.array_equal(table(tmp_path, flex[0]), want)
    assert flex[0]["block_mask"]["lists_lost"] == 0 and flex[0]["block_mask"]["lists_gained"] == 0
    capsys.readouterr()
    assert main(["doctor", str(tmp_path), "--json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert [m["diagnosis"]["documents"] for m in doc["masks"]] == [[3, 5]]
    assert not [f for f in doc["findings"] if f["code"].startswith("blockmask")]


@pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")
def test_flex_block_lists_made_for_another_block_size(tmp_path):
    """from_kv_blocks without BLOCK_SIZE: lists made for 4x4 blocks read as
    128x128 ones. Eager flex follows the mask_mod (the capture's table);
    the lists call the first 128-block full, so compiled flex would let
    every query see every key."""
    from torch.nn.attention.flex_attention import BlockMask, create_block_mask, create_mask, flex_attention

    documents = torch.tensor([0] * 4 + [1] * 4)

    def same_document(b, h, q_idx, kv_idx):
        return documents[q_idx] == documents[kv_idx]

    small = create_block_mask(same_document, None, None, 8, 8, device="cpu", BLOCK_SIZE=4)
    wrong = BlockMask.from_kv_blocks(small.kv_num_blocks, small.kv_indices, small.full_kv_num_blocks,
                                     small.full_kv_indices, mask_mod=same_document, seq_lengths=(8, 8))
    q = torch.randn(1, 1, 8, 4)
    with capture(tmp_path) as cap:
        flex_attention(q, q, q, block_mask=wrong)
    call = next(c for c in cap.calls if c["kind"] == "flex")
    assert call["block_mask"]["block_size"] == [128, 128]
    want = create_mask(same_document, 1, 1, 8, 8, device="cpu")[0, 0].numpy()
    assert np.array_equal(table(tmp_path, call), want)
    # the 32 cells between documents are hidden by the mask_mod, inside a "full" block of the lists
    assert (call["block_mask"]["lists_lost"], call["block_mask"]["lists_gained"]) == (0, int((~want).sum())) == (0, 32)
    found = cross_call(load(str(tmp_path))["calls"], {})
    assert [(f["code"], f["params"].get("gq")) for f in found] == [("blockmask-block-size", 4), ("blockmask-lists", None)]


def test_decode_step_is_causal_bug_script(tmp_path, capsys):
    script = tmp_path / "decode.py"
    script.write_text(
        "import sys\n"
        "import torch\n"
        "import torch.nn.functional as F\n"
        "assert __name__ == '__main__' and sys.argv[1:] == ['--steps', '2'], sys.argv\n"
        "torch.manual_seed(0)\n"
        "q, k = torch.randn(1, 2, 4, 8), torch.randn(1, 2, 4, 8)\n"
        "F.scaled_dot_product_attention(q, k, k, is_causal=True)  # prefill: Q = K, fine\n"
        "for step in range(2):\n"
        "    k = torch.cat([k, torch.randn(1, 2, 1, 8)], dim=2)\n"
        "    F.scaled_dot_product_attention(q[:, :, -1:], k, k, is_causal=True)  # the bug\n"
        "sys.exit(3)\n")
    out = tmp_path / "cap"
    assert main(["capture", "-o", str(out), "--", "python", str(script), "--steps", "2"]) == 3
    capsys.readouterr()
    assert main(["doctor", str(out)]) == 0
    text = capsys.readouterr().out
    assert "is_causal=True with 1 query over 5 keys" in text and "#1-2" in text
    assert main(["doctor", str(out), "--strict"]) == 1
    document = load(str(out))
    assert document["exit_status"] == 3 and document["command"][1] == str(script)
    assert [(c["q_len"], c["k_len"]) for c in document["calls"]] == [(4, 4), (1, 5), (1, 6)]
    decode = np.load(mask_path(str(out), document["calls"][1]["mask"]["hashes"][0][0]))
    assert decode.tolist() == [[True, False, False, False, False]]  # torch's top-left is_causal


def test_capture_without_torch_is_one_line(tmp_path):
    import subprocess
    import sys

    code = ("import sys; sys.modules['torch'] = None\n"
            "from maskattn_tui.cli import main\n"
            f"sys.exit(main(['capture', '-o', {str(tmp_path / 'c')!r}, '--', 'python', {__file__!r}]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "maskattn-tui: error: capture needs torch: pip install 'maskattn-tui[torch]'\n"


def test_an_exception_inside_capture_passes_on_and_is_in_the_manifest(tmp_path):
    q = torch.randn(1, 1, 3, 4)
    with pytest.raises(ZeroDivisionError):
        with capture(tmp_path):
            F.scaled_dot_product_attention(q, q, q)
            1 / 0
    document = load(str(tmp_path))
    assert document["complete"] and document["exception"].startswith("ZeroDivisionError")
    assert [c["mask"]["from"] for c in document["calls"]] == ["none"]
    # capture is off again
    with capture(tmp_path / "again") as cap:
        pass
    assert cap.calls == []


@pytest.fixture
def one_thread():
    """A forked child of a multi-threaded torch parent can hang in SDPA."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_threads_and_a_forked_child(tmp_path, one_thread):
    q = torch.randn(1, 1, 2, 4)
    with capture(tmp_path) as cap:
        thread = threading.Thread(target=F.scaled_dot_product_attention, args=(q, q, q), name="worker")
        thread.start()
        thread.join()
        pid = os.fork()
        if pid == 0:
            F.scaled_dot_product_attention(q, q, q, is_causal=True)
            os._exit(0)
        assert os.waitpid(pid, 0)[1] == 0
    calls = cap.calls
    assert [(c["thread"], c["pid"] == pid) for c in calls] == [("worker", False), ("MainThread", True)]
    assert calls[1]["mask"]["from"] == "is_causal"


def test_one_mask_for_many_layers_is_stored_once(tmp_path):
    mask = torch.ones(6, 6, dtype=torch.bool).tril().expand(3, 4, 6, 6)  # expanded: one slice
    q = torch.randn(3, 4, 6, 8)
    with capture(tmp_path) as cap:
        for _ in range(8):
            F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
    assert len(cap.calls) == 8
    assert {c["mask"]["batch"] for c in cap.calls} == {1} and {c["mask"]["heads"] for c in cap.calls} == {1}
    assert len(os.listdir(tmp_path / "masks")) == 1
    assert len(cap.summary().splitlines()) == 1 and "call(s) #0-7 (8)" in cap.summary()
    assert primary(cap.calls) == cap.calls


class _Layer(torch.nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.mask = mask

    def forward(self, x):
        return F.scaled_dot_product_attention(x, x, x, attn_mask=self.mask)


def test_layers_of_one_forward_given_different_masks(tmp_path):
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    leaky = causal.clone()
    leaky[0, 3] = True  # one layer's copy went wrong
    model = torch.nn.Sequential(_Layer(causal), _Layer(leaky), _Layer(causal))
    x = torch.randn(1, 1, 4, 8)
    with capture(tmp_path) as cap:
        model(x)
        model[0](x)  # a second forward, alone: nothing to compare with
    calls = cap.calls
    # a layer called on its own is the root of its forward (named by its class)
    assert [(c["site"], c["forward"]) for c in calls] == [("0", 0), ("1", 0), ("2", 0), ("_Layer", 1)]
    found = cross_call(calls, {})
    assert [(f["code"], f["calls"], f["params"]["masks"]) for f in found] == [("layers-differ", [0, 1, 2], 2)]
    same = torch.nn.Sequential(_Layer(causal), _Layer(causal.clone()))
    with capture(tmp_path / "same") as cap:
        same(x)
    assert cross_call(cap.calls, {}) == []


def test_a_minimum_that_overflowed_to_minus_infinity(tmp_path):
    low = torch.finfo(torch.float32).min
    causal = torch.zeros(4, 4).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), low)
    padding = torch.tensor([0.0, 0.0, 0.0, low])  # the last key is PAD
    summed = causal + padding  # low + low = -inf in float32
    assert torch.isneginf(summed).any()
    x = torch.randn(1, 1, 4, 8)
    with capture(tmp_path) as cap:
        F.scaled_dot_product_attention(x, x, x, attn_mask=causal)
        F.scaled_dot_product_attention(x, x, x, attn_mask=summed)
    found = cross_call(cap.calls, {})
    assert [(f["code"], f["calls"]) for f in found] == [("min-overflow", [1])]


def test_a_python_child_captures_into_the_same_folder(tmp_path, one_thread):
    child = tmp_path / "child.py"
    child.write_text("import torch, torch.nn.functional as F\n"
                     "q = torch.randn(1, 1, 2, 4)\n"
                     "F.scaled_dot_product_attention(q, q, q, is_causal=True)\n")
    parent = tmp_path / "parent.py"
    parent.write_text("import subprocess, sys, torch, torch.nn.functional as F\n"
                      "q = torch.randn(1, 1, 3, 4)\n"
                      "F.scaled_dot_product_attention(q, q, q)\n"
                      f"subprocess.run([sys.executable, {str(child)!r}], check=True)\n")
    out = tmp_path / "cap"
    assert main(["capture", "-o", str(out), "--", "python", str(parent)]) == 0
    calls = load(str(out))["calls"]
    assert [(c["q_len"], c["mask"]["from"]) for c in calls] == [(3, "none"), (2, "is_causal")]
    assert calls[0]["pid"] != calls[1]["pid"]
    assert "MASKATTN_CAPTURE_DIR" not in os.environ  # put back after the run


def test_importing_capture_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, maskattn_tui.capture, maskattn_tui\nmaskattn_tui.capture\nprint('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout == "False\n"


def test_capture_strings_have_both_languages_and_the_same_placeholders():
    import json
    import string
    from importlib import resources

    raw = json.loads((resources.files("maskattn_tui") / "data" / "strings" / "capture.json").read_text("utf-8"))

    def names(text):
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    assert raw and all(set(texts) == {"en", "zh"} for texts in raw.values())
    assert {key: names(v["zh"]) for key, v in raw.items()} == {key: names(v["en"]) for key, v in raw.items()}


@pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")
def test_a_blockmask_reused_for_a_new_batch_is_caught(tmp_path):
    """The BlockMask built for batch 1's documents, reused for batch 2 after
    its document ids were overwritten in place: the mask_mod now reads batch
    2's documents (what eager flex applies), the block lists are still batch
    1's (what compiled flex would apply): the capture counts the cells."""
    from torch.nn.attention.flex_attention import create_block_mask, create_mask, flex_attention

    documents = torch.tensor([0] * 8 + [1] * 8)

    def same_document(b, h, q_idx, kv_idx):
        return documents[q_idx] == documents[kv_idx]

    block = create_block_mask(same_document, None, None, 16, 16, device="cpu", BLOCK_SIZE=4)
    q = torch.randn(1, 1, 16, 4)
    with capture(tmp_path) as cap:
        flex_attention(q, q, q, block_mask=block)
        first = create_mask(same_document, 1, 1, 16, 16, device="cpu")[0, 0].numpy()
        documents.copy_(torch.tensor([0] * 4 + [1] * 12))  # batch 2, the same BlockMask
        flex_attention(q, q, q, block_mask=block)
        second = create_mask(same_document, 1, 1, 16, 16, device="cpu")[0, 0].numpy()
    calls = [c for c in cap.calls if c["kind"] == "flex"]
    assert [c["block_mask"]["identity"] for c in calls][0] == calls[1]["block_mask"]["identity"]
    assert np.array_equal(table(tmp_path, calls[0]), first) and np.array_equal(table(tmp_path, calls[1]), second)
    assert (calls[0]["block_mask"]["lists_lost"], calls[0]["block_mask"]["lists_gained"]) == (0, 0)
    # tokens 4-7 joined document 1. In blocks the lists skip: rows 4-7 x keys 8-15 and rows 8-15 x
    # keys 4-7 (64 cells now visible); in blocks the lists call full: rows 0-3 x keys 4-7 and rows
    # 4-7 x keys 0-3 (32 cells now hidden)
    lost = int((second & ~first).sum())
    gained = int((~second & first).sum())
    assert (calls[1]["block_mask"]["lists_lost"], calls[1]["block_mask"]["lists_gained"]) == (lost, gained) == (64, 32)
    found = cross_call(cap.calls, {})
    assert [(f["code"], f["calls"]) for f in found] == [("blockmask-lists", [calls[1]["call"]])]


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype stage")
@pytest.mark.parametrize("nested", [False, True], ids=["fast-path", "nested-tensor"])
def test_the_encoder_fast_path_is_kept_and_recorded(tmp_path, nested):
    """nn.MultiheadAttention's and the encoder's fast paths run as without
    capture (a TorchFunctionMode would turn them off: results then differ in
    the last bits); capture records them from their arguments."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=nested).eval()
    attention = torch.nn.MultiheadAttention(16, 2, batch_first=True).eval()
    x = torch.randn(2, 5, 16)
    padding = torch.tensor([[False] * 4 + [True], [False] * 5])
    with torch.no_grad():
        plain = encoder(x, src_key_padding_mask=padding), attention(x, x, x, key_padding_mask=padding)[0]
        with capture(tmp_path) as cap:
            captured = encoder(x, src_key_padding_mask=padding), attention(x, x, x, key_padding_mask=padding)[0]
    assert torch.equal(plain[0], captured[0]) and torch.equal(plain[1], captured[1])
    calls = cap.calls
    assert [c["kind"] for c in calls] == ["mha"] * 3
    assert [c.get("layer_path") for c in calls[:2]] == ["layers.0", "layers.1"]
    for call in calls:
        assert (call["q_len"], call["k_len"], call["batch"]) == (5, 5, 2)
        assert np.array_equal(table(tmp_path, call, 0) == 0, np.array([[True] * 4 + [False]] * 5))
        assert np.all(table(tmp_path, call, 1) == 0)


def test_a_compiled_module_runs_unchanged_under_capture(tmp_path):
    """Inside a compiled graph the wrappers step aside: the graph holds the
    original SDPA, so even the eager backend's graph runs unseen (and
    unchanged); capture puts no global module hook in (dynamo warns of
    those), so compiling under it warns of nothing."""
    class Layer(torch.nn.Module):
        def forward(self, x):
            return F.scaled_dot_product_attention(x, x, x, is_causal=True)

    model = torch.nn.Sequential(Layer(), Layer())
    x = torch.randn(1, 1, 4, 8)
    plain = model(x)
    compiled = torch.compile(model, backend="eager")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with capture(tmp_path) as cap:
            first, second = compiled(x), compiled(x)
    assert torch.equal(first, plain) and torch.equal(second, plain)
    assert cap.calls == []
    with capture(tmp_path / "plain") as cap:
        model(x)  # the same model, not compiled: both layers seen
    assert [c["mask"]["from"] for c in cap.calls] == ["is_causal"] * 2


@pytest.mark.slow  # a spawned worker imports torch afresh (6 s here, more on a busy machine)
def test_spawned_pool_workers_capture_into_the_same_folder(tmp_path):
    """multiprocessing's spawn start method: a new Python per worker, which
    finds capture's sitecustomize on PYTHONPATH; the pool ends its workers
    with SIGTERM, and every call they made is in their calls files."""
    script = tmp_path / "pool.py"
    script.write_text(
        "import multiprocessing as mp\n"
        "import torch, torch.nn.functional as F\n"
        "def work(n):\n"
        "    torch.set_num_threads(1)\n"
        "    q = torch.randn(1, 1, n, 4)\n"
        "    return F.scaled_dot_product_attention(q, q, q, is_causal=True).shape[2]\n"
        "if __name__ == '__main__':\n"
        "    with mp.get_context('spawn').Pool(1) as pool:\n"
        "        assert pool.map(work, [2, 3]) == [2, 3]\n")
    out = tmp_path / "cap"
    assert main(["capture", "-o", str(out), "--", "python", str(script)]) == 0
    calls = load(str(out))["calls"]
    assert sorted(c["q_len"] for c in calls) == [2, 3]
    assert len({c["pid"] for c in calls}) == 1 and calls[0]["pid"] != os.getpid()


def test_python_dash_m_runs_a_module_from_the_current_folder(tmp_path, monkeypatch, capsys):
    package = tmp_path / "demo_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(
        "import sys, torch, torch.nn.functional as F\n"
        "assert sys.argv[1:] == ['x'], sys.argv\n"
        "q = torch.randn(1, 1, 3, 4)\n"
        "F.scaled_dot_product_attention(q, q, q, is_causal=True)\n")
    monkeypatch.chdir(tmp_path)  # python -m finds modules in the current folder
    assert main(["capture", "-o", "cap", "--", "python", "-m", "demo_pkg", "x"]) == 0
    assert [c["q_len"] for c in load(str(tmp_path / "cap"))["calls"]] == [3]
    capsys.readouterr()
    assert main(["capture", "-o", "cap", "--", "python", "-m", "no_such_pkg"]) == 2
    assert capsys.readouterr().err == "maskattn-tui: error: no_such_pkg: no such module (python -m)\n"


def test_a_manifest_edited_by_hand_is_one_line(tmp_path, capsys):
    import json

    q = torch.randn(1, 1, 3, 4)
    with capture(tmp_path):
        F.scaled_dot_product_attention(q, q, q)
    path = tmp_path / "capture.json"
    document = json.loads(path.read_text())
    for broken, reason in ((lambda d: d["calls"][0].pop("q_len"), "calls[0]: `q_len` is missing"),
                           (lambda d: d["calls"][0]["mask"].update(hashes=[["../../etc/passwd"]]),
                            "calls[0]: `mask.hashes` is [[\"../../etc/passwd\"]], not what capture writes"),
                           (lambda d: d.update(calls={}), "capture.json: `calls` is {}, not what capture writes")):
        copy = json.loads(json.dumps(document))
        broken(copy)
        path.write_text(json.dumps(copy))
        capsys.readouterr()
        assert main(["doctor", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and reason in err, err


class _Inner(torch.nn.Module):
    def forward(self, q):
        return F.scaled_dot_product_attention(q, q, q)  # the inner call


class _Outer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = _Inner(), _Inner()

    def forward(self, q):
        x = self.a(q)
        y = F.scaled_dot_product_attention(q, q, q, is_causal=True)  # the outer call
        return self.b(x + y)


def test_frames_inside_modules_of_the_users_own(tmp_path):
    """User code inside the module stack: each call's frame and user frame
    is its own line (the lines read from this file), whichever module
    call's walk was made before."""
    import inspect

    source = inspect.getsourcefile(_Inner)
    with open(source, encoding="utf-8") as file:
        lines = file.read().splitlines()
    here = os.path.relpath(os.path.realpath(source), os.getcwd())
    inner, outer = (f"{here}:{lines.index(next(x for x in lines if x.endswith(mark))) + 1}"
                    for mark in ("# the inner call", "# the outer call"))
    q = torch.randn(1, 1, 3, 4)
    with capture(tmp_path) as cap:
        model = _Outer()
        model(q)
        model(q)
    got = [(c["site"], c["frame"], c["user_frame"]) for c in cap.calls]
    assert got == 2 * [("a", inner, inner), ("_Outer", outer, outer), ("b", inner, inner)]
