"""How capture names calls without a hook on every module (sites.py): no
global module hook and torch's own Module.__call__ while capture is on (so
every module call keeps torch's fast path), names read from the recorded
call's frames, the root's own hooks, and the calls of a finished forward
written to the calls file when it ends (a killed run keeps them)."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from maskattn_tui import capture  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


class Attend(torch.nn.Module):
    def forward(self, x):
        return F.scaled_dot_product_attention(x, x, x, is_causal=True)


class Block(torch.nn.Module):
    def __init__(self, index: int) -> None:
        super().__init__()
        self.layer_idx = index
        self.attn = Attend()

    def forward(self, x):
        return self.attn(x)


class Wrapper(torch.nn.Module):
    def __init__(self, inner) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)


def _written(folder) -> list[dict]:
    """The calls file as it is on disk now (not through Capture.calls, which writes what waits first)."""
    return [json.loads(line) for name in glob.glob(os.path.join(folder, "calls-*.jsonl"))
            for line in open(name, encoding="utf-8")]


def test_no_module_hook_and_torchs_own_call_while_capture_is_on(tmp_path):
    from torch.nn.modules import module as torch_module

    call = torch.nn.Module.__call__
    model = torch.nn.Sequential(Block(0), Block(1))
    x = torch.randn(1, 1, 4, 8)
    with capture(tmp_path) as cap:
        model(x)
        assert torch.nn.Module.__call__ is call
        assert not torch_module._global_forward_hooks and not torch_module._global_forward_pre_hooks
        # only the root got hooks of its own; the blocks and their attention keep the fast path
        assert model._forward_pre_hooks and model._forward_hooks
        assert not any(m._forward_pre_hooks or m._forward_hooks for m in model.modules() if m is not model)
        model(x)
    assert not model._forward_pre_hooks and not model._forward_hooks  # taken out when capture ends
    names = [(c["site"], c["layer"], c["forward"]) for c in cap.calls]
    assert names == [("0.attn", 0, 0), ("1.attn", 1, 0), ("0.attn", 0, 1), ("1.attn", 1, 1)]


def test_a_module_met_first_alone_is_named_inside_its_model_later(tmp_path):
    """The block runs alone (the root of its own forward), then inside the
    whole model: there the walk passes the block's old frame id without
    taking it for the block's call (ids come back once a frame is gone)."""
    blocks = torch.nn.Sequential(Block(0), Block(1))
    x = torch.randn(1, 1, 4, 8)
    with capture(tmp_path) as cap:
        blocks[1](x)
        blocks(x)
        blocks[1](x)
    assert [(c["site"], c["forward"]) for c in cap.calls] == [
        ("attn", 0), ("0.attn", 1), ("1.attn", 1), ("1.attn", 2)]


def test_a_finished_forward_is_on_disk_before_capture_ends(tmp_path):
    model = Wrapper(torch.nn.Sequential(Block(0), Block(1)))
    x = torch.randn(1, 1, 4, 8)
    with capture(tmp_path):
        model(x)  # the root's first forward: its calls are written as they are made
        assert len(_written(tmp_path)) == 2
        model(x)  # a followed forward: its calls are written when it ends
        assert [c["forward"] for c in _written(tmp_path)] == [0, 0, 1, 1]


def test_a_script_ending_with_os_exit_keeps_every_finished_forward(tmp_path):
    script = tmp_path / "ends.py"
    script.write_text(
        "import os, torch\n"
        "import torch.nn.functional as F\n"
        "class Attend(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return F.scaled_dot_product_attention(x, x, x, is_causal=True)\n"
        "model = torch.nn.Sequential(Attend(), Attend())\n"
        "x = torch.randn(1, 1, 4, 8)\n"
        "for _ in range(3):\n"
        "    model(x)\n"
        "os._exit(0)\n")
    folder = tmp_path / "cap"
    done = subprocess.run([sys.executable, "-m", "maskattn_tui", "capture", "-o", str(folder), "--", "python",
                           str(script)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": SRC})
    assert done.returncode == 0, done.stderr
    assert [(c["site"], c["forward"]) for c in _written(folder)] == [
        (site, forward) for forward in range(3) for site in ("0", "1")]


WHERE = ("site", "layer", "forward", "generate_step", "frame", "user_frame", "within")


def _wheres(calls):
    return [(c["kind"], *(c.get(k) for k in WHERE)) for c in calls]


def test_an_hf_call_named_from_its_module_as_the_full_walk_names_it(tmp_path, monkeypatch):
    """An HF attention call is named from the module it is given (only the
    code of its frames is read): the same names, frames and steps as the
    walk that reads every module frame, also with code of the user's own
    between the model and the attention (then that is the call's user frame)."""
    pytest.importorskip("transformers")
    from test_capture_hf import generate, llama

    from maskattn_tui.capture.sites import Sites

    model = llama("sdpa")
    layer = model.model.layers[1]
    own = type(layer).forward

    def users_forward(*args, **kwargs):
        return own(*args, **kwargs)  # the user's frame between the model and layer 1's attention

    layer.forward = users_forward.__get__(layer)
    runs = []
    for walk in (False, True):
        if walk:
            monkeypatch.setattr(Sites, "locate_module", lambda self, module, depth: self.locate(depth + 1))
        with torch.no_grad(), capture(tmp_path / str(walk)) as cap:
            generate(model)
            generate(model)
        runs.append(_wheres(cap.calls))
    assert runs[0] == runs[1]
    hf = [w for w in runs[0] if w[0] == "hf"]
    assert len(hf) == 12 and {w[1] for w in hf} == {"model.layers.0.self_attn", "model.layers.1.self_attn"}
    import inspect

    users = {w[6] for w in hf if w[2] == 1}
    line = own_line = inspect.getsourcelines(users_forward)[1] + 1
    assert users == {f"tests/test_capture_naming.py:{own_line}"}  # layer 1's calls: the user's line
    line = inspect.getsourcelines(generate)[1] + 1  # layer 0's: the line calling generate()
    assert {w[6] for w in hf if w[2] == 0} == {f"tests/test_capture_hf.py:{line}"}
