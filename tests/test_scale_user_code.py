"""doctor FILE.py:NAME and --mask FILE.py:NAME run the user's code: whatever
it does (exit, raise, print, return the wrong thing) is one line and exit 2,
never a silent pass; their output stays out of the report (--json is one
JSON document); bad lengths, blocks and indices are refused before their
function is blamed. The scan's threads give torch's own cells."""

import io
import json
import sys

import numpy as np
import pytest
import torch
from torch.nn.attention.flex_attention import create_block_mask, create_mask

from maskattn_tui.cli import main
from maskattn_tui.errors import MaskattnError
from maskattn_tui.scale import doctor_run, tiles
from maskattn_tui.scale.mask_mod import Evaluator, evaluator, load, split_spec

MODS = '''
import sys
import torch

def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx

def exits0(b, h, q_idx, kv_idx):
    sys.exit(0)

def exits1(b, h, q_idx, kv_idx):
    sys.exit(1)

def raises(b, h, q_idx, kv_idx):
    raise RuntimeError("my bug")

def chatty(b, h, q_idx, kv_idx):
    print("hello from the mask_mod")
    return q_idx >= kv_idx

def constant(b, h, q_idx, kv_idx):
    return True

def branches(b, h, q_idx, kv_idx):
    if q_idx >= kv_idx:
        return True
    return False

def reads_value(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx if int(q_idx.max()) < 10 ** 9 else q_idx < kv_idx

def late_failure(b, h, q_idx, kv_idx):       # fails only on a band far from the first
    if int(q_idx.max()) >= 900:
        raise ValueError("row 900")
    return q_idx >= kv_idx

doc_id = torch.repeat_interleave(torch.arange(3), torch.tensor([300, 200, 523]))

def documents(b, h, q_idx, kv_idx):
    return (doc_id[q_idx] == doc_id[kv_idx]) & (q_idx >= kv_idx)

def window(b, h, q_idx, kv_idx):
    return (kv_idx <= q_idx) & (kv_idx > q_idx - 100)

class Masks:
    class Inner:
        @staticmethod
        def prefix(b, h, q_idx, kv_idx):
            return (kv_idx < 10) | (q_idx >= kv_idx)
'''


@pytest.fixture
def mods(tmp_path, monkeypatch):
    path = tmp_path / "mods.py"
    path.write_text(MODS)
    monkeypatch.chdir(tmp_path)
    return "mods.py"


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line(code, out, err):
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("name, code", [("exits0", "0"), ("exits1", "1")])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_mask_mod_that_calls_sys_exit_is_an_error_never_a_pass(mods, capsys, name, code, lang):
    err = _one_line(*_run(capsys, "doctor", f"{mods}:{name}", "--q-len", 64, "--kv-len", 64, "--expect",
                          "--past", 0, "--new", 64, "--lang", lang))
    assert f"{name}(b, h, q_idx, kv_idx)" in err and f"sys.exit({code})" in err
    # print --mask (mask mode's text) and --json too
    err = _one_line(*_run(capsys, "print", "--mask", f"{mods}:{name}", "--q-len", 64, "--kv-len", 64,
                          "--lang", lang))
    assert f"sys.exit({code})" in err
    code_, out, err = _run(capsys, "doctor", f"{mods}:{name}", "--q-len", 64, "--kv-len", 64, "--json")
    assert code_ == 2 and json.loads(out)["error"]["code"] == "scale_exit"


def test_the_app_on_such_a_mask_mod_exits_2_before_it_starts(mods, capsys, monkeypatch):
    monkeypatch.setattr("maskattn_tui.cli.commands._on_a_terminal", lambda: True)
    err = _one_line(*_run(capsys, "--mask", f"{mods}:exits0", "--q-len", 64, "--kv-len", 64))
    assert "sys.exit(0)" in err


def test_what_the_mask_mod_prints_stays_out_of_the_report(mods, capsys):
    code, out, err = _run(capsys, "doctor", f"{mods}:chatty", "--q-len", 300, "--kv-len", 300, "--json")
    assert code == 0 and json.loads(out)["reading"]["family"] == "causal"
    assert "hello from the mask_mod" in err and "hello" not in out
    code, out, err = _run(capsys, "print", "--mask", f"{mods}:chatty", "--q-len", 64, "--kv-len", 64)
    assert code == 0 and "hello" not in out and "hello from the mask_mod" in err
    print("after")  # stdout is given back
    assert capsys.readouterr().out == "after\n"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_vmaps_advice_is_not_given_to_a_mask_mod_author(mods, capsys, lang):
    err = _one_line(*_run(capsys, "doctor", f"{mods}:constant", "--q-len", 64, "--kv-len", 64, "--lang", lang))
    assert "out_dims" not in err and "constant(b, h, q_idx, kv_idx)" in err and "bool" in err
    for name in ("branches", "reads_value"):
        err = _one_line(*_run(capsys, "doctor", f"{mods}:{name}", "--q-len", 64, "--kv-len", 64, "--lang", lang))
        assert "file a" not in err and "torch.where" in err and f"{name}(b, h" in err
    err = _one_line(*_run(capsys, "doctor", f"{mods}:raises", "--q-len", 64, "--kv-len", 64, "--lang", lang))
    assert "RuntimeError: my bug" in err


def test_an_error_on_a_late_band_reaches_the_main_thread(mods, monkeypatch):
    monkeypatch.setattr(tiles, "TILE_CELLS", 1 << 14)
    ev = Evaluator(load(f"{mods}:late_failure"), "late_failure", engine="torch")
    with pytest.raises(MaskattnError) as caught:
        tiles.scan(ev.tile, 1023, 1023, 16, 16, workers=3)
    assert caught.value.key == "scale_call" and "row 900" in str(caught.value)
    assert caught.value.params["q0"] >= 900 - tiles.tile_shape(16, 16, 1023)[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_expect_of_another_shape_is_one_line_as_for_a_saved_mask(mods, capsys, tmp_path, lang):
    err = _one_line(*_run(capsys, "doctor", f"{mods}:causal", "--q-len", 64, "--kv-len", 64, "--expect",
                          "--past", 0, "--new", 32, "--lang", lang))
    np.save(tmp_path / "saved.npy", np.tril(np.ones((64, 64), bool)))
    saved = _one_line(*_run(capsys, "doctor", "saved.npy", "--expect", "--past", 0, "--new", 32, "--lang", lang))
    assert err.replace(f"{mods}:causal", "saved.npy") == saved


@pytest.mark.parametrize("argv, option", [
    (["--block", "100000000000000000000"], "--block"),
    (["--block", "5000"], "--block"),
    (["--built-block", "100000000000000000000"], "--built-block"),
    (["--batch", "100000000000000000000"], "--batch"),
    (["--head", str(1 << 31)], "--head"),
])
def test_huge_numbers_are_refused_naming_the_option_not_the_function(mods, capsys, argv, option):
    err = _one_line(*_run(capsys, "doctor", f"{mods}:causal", "--q-len", 64, "--kv-len", 64, *argv))
    assert err.split(": error: ")[1].startswith(option) and "causal(" not in err
    if option in ("--batch", "--head"):
        err = _one_line(*_run(capsys, "print", "--mask", f"{mods}:causal", "--q-len", 64, "--kv-len", 64, *argv))
        assert option in err and "causal(" not in err


def test_an_attribute_path_names_a_mask_mod(mods, capsys):
    assert split_spec("mods.py:Masks.Inner.prefix") == ("mods.py", "Masks.Inner.prefix")
    assert split_spec("mods.py:Masks..prefix") is None and split_spec("mask.npy:a.b") is None
    code, out, err = _run(capsys, "doctor", f"{mods}:Masks.Inner.prefix", "--q-len", 300, "--kv-len", 300, "--json")
    got = json.loads(out)
    fn = load(f"{mods}:Masks.Inner.prefix")
    truth = create_mask(fn, 1, 1, 300, 300, device="cpu")[0, 0].numpy()
    assert code == 0 and got["visible"] == int(truth.sum()) and got["reading"]["pattern"] == "prefix"
    err = _one_line(*_run(capsys, "doctor", f"{mods}:Masks.missing", "--q-len", 64, "--kv-len", 64))
    assert "Masks.missing" in err and "--q-len is for" not in err


@pytest.mark.parametrize("rule", ["documents", "window"])
def test_the_threaded_scan_gives_torchs_blocks(mods, monkeypatch, rule):
    """Many bands on three threads: the same block kinds as create_block_mask
    and the same row statistics as a dense create_mask."""
    monkeypatch.setattr(tiles, "TILE_CELLS", 1 << 13)
    n = 1023
    fn = load(f"{mods}:{rule}")
    ev = evaluator(fn, rule, n, n)
    one = tiles.scan(ev.tile, n, n, 32, 32, workers=1)
    three = tiles.scan(ev.tile, n, n, 32, 32, workers=3)
    assert np.array_equal(one.sums, three.sums)
    dense = create_mask(fn, 1, 1, n, n, device="cpu")[0, 0].numpy()
    assert np.array_equal(three.stats.count, dense.sum(axis=1))
    assert np.array_equal(three.stats.lo, dense.argmax(axis=1))
    assert np.array_equal(three.stats.hi, n - 1 - dense[:, ::-1].argmax(axis=1))
    bm = create_block_mask(fn, 1, 1, n, n, device="cpu", BLOCK_SIZE=32)
    assert np.array_equal(three.blocks.kv_num_blocks, bm.kv_num_blocks[0, 0].numpy())
    assert np.array_equal(three.blocks.full_kv_num_blocks, bm.full_kv_num_blocks[0, 0].numpy())


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_progress_on_a_terminal_counts_tiles_and_seconds(mods, monkeypatch, capsys, lang):
    monkeypatch.setattr(tiles, "TILE_CELLS", 1 << 14)
    monkeypatch.setattr(doctor_run, "PROGRESS_EVERY", 0.0)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["doctor", f"{mods}:window", "--q-len", "1000", "--kv-len", "1000", "--lang", lang]) == 0
    told = terminal.getvalue()
    rows, keys = tiles.tile_shape(128, 128, 1000)
    total = -(-1000 // rows) * -(-1000 // keys)
    first = "tiles 1 of" if lang == "en" else "分块 "
    assert f"{first}" in told and f"{total}" in told and told.endswith("\r\x1b[K")
    assert (" s, on 2 threads" if lang == "en" else "秒") in told or "threads" in told or "线程" in told
    # --json on the same terminal: no progress; on a pipe (capsys): none either
    terminal.seek(0)
    terminal.truncate()
    assert main(["doctor", f"{mods}:window", "--q-len", "1000", "--kv-len", "1000", "--json"]) == 0
    assert terminal.getvalue() == ""


def test_no_progress_on_a_pipe(mods, monkeypatch, capsys):
    monkeypatch.setattr(tiles, "TILE_CELLS", 1 << 14)
    monkeypatch.setattr(doctor_run, "PROGRESS_EVERY", 0.0)
    code, out, err = _run(capsys, "doctor", f"{mods}:window", "--q-len", 1000, "--kv-len", 1000)
    assert code == 0 and err == "" and "Reading:" in out
