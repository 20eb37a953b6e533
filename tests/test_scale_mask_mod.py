"""doctor FILE.py:NAME: a user's mask_mod, by tiles. Block counts and the
picture are held against torch's own create_block_mask / create_mask on CPU
(the same mask_mod, the same block size), the row statistics against a dense
create_mask, the reading and --expect against what the mask_mod was written
to be, bad input against "one line, exit 2"."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from maskattn_tui.cli import main

torch = pytest.importorskip("torch")
from torch.nn.attention.flex_attention import create_block_mask, create_mask  # noqa: E402

from maskattn_tui.scale import tiles  # noqa: E402
from maskattn_tui.scale.mask_mod import evaluator, load  # noqa: E402
from test_scale_blocks import torch_kind  # noqa: E402

MODS = '''
import torch
from torch.nn.attention.flex_attention import and_masks, or_masks

def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx

def sliding(b, h, q_idx, kv_idx):          # attention-gym's generate_sliding_window(w=64)
    return q_idx - kv_idx <= 64

gym_window = and_masks(causal, sliding)    # 65 keys including itself

def hf_window(b, h, q_idx, kv_idx):        # Hugging Face's sliding_window=64
    return (kv_idx <= q_idx) & (kv_idx > q_idx - 64)

def prefix(b, h, q_idx, kv_idx):
    return kv_idx < 100

prefix_lm = or_masks(prefix, causal)

doc_id = torch.repeat_interleave(torch.arange(3), torch.tensor([300, 200, 500]))

def documents(b, h, q_idx, kv_idx):
    return (doc_id[q_idx] == doc_id[kv_idx]) & (q_idx >= kv_idx)

def odd(b, h, q_idx, kv_idx):              # no rule: a pattern only cells describe
    return ((q_idx * 7 + kv_idx * 3) % 11 < 5) | (q_idx - kv_idx == 3)

def per_head(b, h, q_idx, kv_idx):         # depends on b and h
    return (q_idx >= kv_idx) & (q_idx - kv_idx < 16 * (h + 1) + b)

def numpy_lies(b, h, q_idx, kv_idx):       # means something else on numpy arrays
    if isinstance(q_idx, torch.Tensor):
        return q_idx >= kv_idx
    return q_idx <= kv_idx

def leaky(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx) | ((q_idx == 500) & (kv_idx == 700))

def with_empty_rows(b, h, q_idx, kv_idx):  # left PAD 40 under causal: rows 0..39 see nothing
    return (q_idx >= kv_idx) & (kv_idx >= 40)

def broken(b, h, q_idx, kv_idx):
    return q_idx.item() > 0

not_a_function = 3
'''


@pytest.fixture()
def mods(tmp_path) -> Path:
    path = tmp_path / "mods.py"
    path.write_text(MODS)
    return path


def _command() -> list[str]:
    script = Path(sys.executable).with_name("maskattn-tui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "maskattn_tui"]


@pytest.mark.parametrize("name,q_len,kv_len,block", [
    ("causal", 1000, 1000, 128), ("gym_window", 517, 300, 16), ("prefix_lm", 1024, 1024, 32),
    ("documents", 1000, 1000, 128), ("odd", 300, 517, 16), ("odd", 129, 1025, 128),
    ("per_head", 256, 256, 16), ("numpy_lies", 200, 200, 16),
])
def test_scan_equals_create_block_mask_and_create_mask(mods, monkeypatch, name, q_len, kv_len, block):
    monkeypatch.setattr(tiles, "TILE_CELLS", 1 << 13)  # many tiles, cut at odd places
    fn = load(f"{mods}:{name}")
    b, h = (1, 2) if name == "per_head" else (0, 0)
    ev = evaluator(fn, name, q_len, kv_len, b, h)
    got = tiles.scan(ev.tile, q_len, kv_len, block, block)
    bm = create_block_mask(fn, b + 1, h + 1, q_len, kv_len, device="cpu", BLOCK_SIZE=block)[b, h]
    assert np.array_equal(got.blocks.kind, torch_kind(bm))
    assert got.blocks.sparsity() == pytest.approx(bm.sparsity())
    dense = create_mask(fn, b + 1, h + 1, q_len, kv_len, device="cpu")[b, h].numpy()
    count = dense.sum(axis=1)
    assert np.array_equal(got.stats.count, count)
    assert np.array_equal(got.stats.lo, np.where(count > 0, dense.argmax(axis=1), 0))
    assert np.array_equal(got.stats.hi, np.where(count > 0, kv_len - 1 - dense[:, ::-1].argmax(axis=1), -1))
    assert got.visible == int(dense.sum())


def test_engine_is_the_one_that_gives_torchs_cells(mods):
    assert evaluator(load(f"{mods}:causal"), "causal", 64, 64).engine == "numpy"
    assert evaluator(load(f"{mods}:documents"), "documents", 64, 64).engine == "torch"
    assert evaluator(load(f"{mods}:numpy_lies"), "numpy_lies", 64, 64).engine != "numpy"
    # and_masks / or_masks need torch as a whole (b.new_ones), not their parts
    assert evaluator(load(f"{mods}:gym_window"), "gym_window", 64, 64).engine == "numpy"
    assert evaluator(load(f"{mods}:prefix_lm"), "prefix_lm", 64, 64).engine == "numpy"


def _json(capsys, *argv) -> dict:
    code = main(["doctor", *map(str, argv), "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("block", [16, 128])
def test_json_counts_are_create_block_masks(mods, capsys, block):
    for name in ("gym_window", "documents", "prefix_lm"):
        code, doc = _json(capsys, f"{mods}:{name}", "--q-len", 1000, "--kv-len", 1000, "--block", block)
        assert code == 0
        bm = create_block_mask(load(f"{mods}:{name}"), 1, 1, 1000, 1000, device="cpu", BLOCK_SIZE=block)
        blocks = doc["blocks"]
        assert blocks["kv_num_blocks"] == bm.kv_num_blocks[0, 0].tolist()
        assert blocks["full_kv_num_blocks"] == bm.full_kv_num_blocks[0, 0].tolist()
        assert blocks["sparsity"] == pytest.approx(bm.sparsity(), abs=1e-6)
        assert blocks["picture"] == str(bm)


def test_reading_names_the_rule_the_mask_mod_was_written_as(mods, capsys):
    _, doc = _json(capsys, f"{mods}:gym_window", "--q-len", 1000, "--kv-len", 1000)
    assert (doc["reading"]["family"], doc["reading"]["rule"]["window"]) == ("window", 65)
    _, doc = _json(capsys, f"{mods}:documents", "--q-len", 1000, "--kv-len", 1000)
    assert doc["reading"]["rule"]["documents"] == [300, 200, 500]
    _, doc = _json(capsys, f"{mods}:prefix_lm", "--q-len", 1000, "--kv-len", 1000)
    assert doc["reading"]["rule"]["prefix"] == 100 or any(a["rule"]["prefix"] == 100 for a in doc["reading"]["also"])
    _, doc = _json(capsys, f"{mods}:leaky", "--q-len", 1000, "--kv-len", 1000)
    assert doc["reading"]["leaks"] == [[500, 700]] and doc["reading"]["leak_count"] == 1
    _, doc = _json(capsys, f"{mods}:with_empty_rows", "--q-len", 300, "--kv-len", 300)
    assert doc["reading"]["empty_count"] == 40 and doc["reading"]["empty_rows"][:3] == [0, 1, 2]
    assert doc["reading"]["rule"]["pad"] == 40


def test_expect_names_the_cells_of_a_window_one_key_too_wide(mods, capsys):
    """attention-gym's w=64 keeps 65 keys; Hugging Face's sliding_window=64 keeps 64."""
    code, doc = _json(capsys, f"{mods}:gym_window", "--q-len", 1000, "--kv-len", 1000,
                      "--expect", "--window", 64)
    assert code == 1
    expected = [[q, q - 64] for q in range(64, 1000)]
    assert doc["expect"]["differs_count"] == len(expected)
    assert doc["expect"]["differs"] == expected[:20]
    assert doc["expect"]["shown_but_hidden"] == expected[:20] and doc["expect"]["hidden_but_shown"] == []
    code, doc = _json(capsys, f"{mods}:hf_window", "--q-len", 1000, "--kv-len", 1000, "--expect", "--window", 64)
    assert code == 0 and doc["expect"]["match"]


def test_text_report_in_both_languages(mods, capsys):
    for lang in ("en", "zh"):
        assert main(["doctor", f"{mods}:gym_window", "--q-len", "512", "--kv-len", "512", "--lang", lang]) == 0
        out = capsys.readouterr().out
        bm = create_block_mask(load(f"{mods}:gym_window"), 1, 1, 512, 512, device="cpu")
        assert str(bm) in out
        assert ("sliding window, 65 keys" if lang == "en" else "滑动窗口，含自身 65 个") in out


@pytest.mark.parametrize("argv,says", [
    (["{mods}:nope", "--q-len", "8", "--kv-len", "8"], "defines no nope"),
    (["{mods}:not_a_function", "--q-len", "8", "--kv-len", "8"], "not a function"),
    (["{dir}/missing.py:f", "--q-len", "8", "--kv-len", "8"], "no such file"),
    (["{bad}:f", "--q-len", "8", "--kv-len", "8"], "importing it failed: RuntimeError: boom"),
    (["{mods}:broken", "--q-len", "8", "--kv-len", "8"], "reads its value"),
    (["{mods}:causal", "--q-len", "8"], "needs --kv-len"),
    (["{mods}:causal", "--q-len", "0", "--kv-len", "8"], "--q-len"),
    (["{mods}:causal", "--q-len", "8", "--kv-len", "99999999"], "must be 1 to"),
    (["{dir}/mask.npy", "--q-len", "8"], "--q-len is for a mask_mod"),
    (["{mods}:causal", "--q-len", "131072", "--kv-len", "131072", "--block", "16"], "choose a larger --block"),
])
def test_bad_input_is_one_line_and_exit_2(mods, tmp_path, capsys, argv, says):
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')\n")
    np.save(tmp_path / "mask.npy", np.tri(8, dtype=bool))
    argv = [a.format(mods=mods, dir=tmp_path, bad=bad) for a in argv]
    assert main(["doctor", *argv]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], lines


def test_a_failing_mask_mod_in_a_real_process_is_one_line(mods):
    result = subprocess.run([*_command(), "doctor", f"{mods}:broken", "--q-len", "8", "--kv-len", "8"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr and "broken(b, h, q_idx, kv_idx)" in result.stderr \
        and ".item()" in result.stderr


def test_a_local_causal_mask_mod_over_a_cache_is_told_to_add_the_offset(mods, capsys):
    """FlexAttention's q_idx is local; decode after a cache needs q_idx + past."""
    assert main(["doctor", f"{mods}:causal", "--q-len", "4", "--kv-len", "260"]) == 0
    out = capsys.readouterr().out
    assert "top-left" in out and "q_idx + 256 >= kv_idx" in out
    assert main(["doctor", f"{mods}:causal", "--q-len", "260", "--kv-len", "260"]) == 0
    assert "q_idx +" not in capsys.readouterr().out


@pytest.mark.parametrize("workers", [1, 3])
def test_the_scan_tells_its_progress_once_a_tile(mods, monkeypatch, workers):
    monkeypatch.setattr(tiles, "TILE_CELLS", 1 << 12)
    ev = evaluator(load(f"{mods}:causal"), "causal", 300, 300)
    told = []
    tiles.scan(ev.tile, 300, 300, 16, 16, lambda done, total: told.append((done, total)), workers=workers)
    rows, keys = tiles.tile_shape(16, 16, 300)
    total = -(-300 // rows) * -(-300 // keys)
    assert total > 4 and told == [(done, total) for done in range(1, total + 1)]


def test_a_mask_mod_that_depends_on_the_head_says_so(mods, capsys):
    code, doc = _json(capsys, f"{mods}:per_head", "--q-len", 256, "--kv-len", 256)
    assert [d["option"] for d in doc["depends_on"]] == ["--batch", "--head"]
    r, k = doc["depends_on"][1]["row"], doc["depends_on"][1]["key"]
    fn = load(f"{mods}:per_head")
    cells = create_mask(fn, 1, 2, 256, 256, device="cpu")[0].numpy()
    assert cells[0, r, k] != cells[1, r, k]
    code, doc = _json(capsys, f"{mods}:causal", "--q-len", 256, "--kv-len", 256)
    assert doc["depends_on"] == []
    for lang in ("en", "zh"):
        assert main(["doctor", f"{mods}:per_head", "--q-len", "256", "--kv-len", "256", "--lang", lang]) == 0
        assert "--head 1" in capsys.readouterr().out
