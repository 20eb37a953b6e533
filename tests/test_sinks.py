"""Attention sinks (--sinks K: the first K real keys every later query sees
beside a window or chunks, StreamingLLM) on every surface, checked against
an independent mask_mod (attention-gym's sink + window shape: causal AND
(window OR sink)) through FlexAttention's create_mask / create_block_mask,
and SDPA on the same table."""

import subprocess
import sys

import numpy as np
import pytest

from maskattn_tui.doctor.expect import ExpectOptions, expect
from maskattn_tui.doctor.expect_args import reading_flags
from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore.api_lens import lens
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.patterns import preset_changes
from maskattn_tui.scale.blocks import from_runs
from maskattn_tui.scale.explore_big import big_config, overview
from maskattn_tui.scale.intervals import rule_runs

torch = pytest.importorskip("torch")
flex = pytest.importorskip("torch.nn.attention.flex_attention")
pytestmark = pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")


def sink_mod(past, sinks, window=None, chunk=None, pad=0, pad_side="left", keys=None):
    """The rule as a mask_mod written from the papers, not from our code:
    causal & (local | sink), PAD hidden; sinks counted from the first real key."""
    origin = pad if pad_side == "left" else 0

    def mod(b, h, q_idx, kv_idx):
        p = q_idx + past
        local = kv_idx >= 0
        if window is not None:
            local = local & (kv_idx > p - window)
        if chunk is not None:
            local = local & ((kv_idx - origin) // chunk == (p - origin) // chunk)
        sink = (kv_idx >= origin) & (kv_idx < origin + sinks)
        ok = (kv_idx <= p) & (local | sink)
        if pad:
            ok = ok & ((kv_idx >= pad) if pad_side == "left" else (kv_idx < keys - pad))
        return ok
    return mod


def torch_table(mod, rows, keys) -> np.ndarray:
    return flex.create_mask(mod, 1, 1, rows, keys, device="cpu")[0, 0].numpy()


CASES = [
    dict(past=4, new=4, window=3, sinks=2),
    dict(past=0, new=9, window=2, sinks=3),
    dict(past=3, new=6, chunk=3, sinks=1),
    dict(past=5, new=5, window=4, sinks=2, pad=2),
    dict(past=5, new=5, window=3, sinks=2, pad=2, pad_side="right"),
    dict(past=2, new=7, chunk=4, sinks=2, pad=1),
]


@pytest.mark.parametrize("case", CASES)
def test_both_evaluators_and_the_flex_lens_equal_create_mask(case):
    config = ExploreConfig(**case)
    ours = np.array(config.table().allowed, dtype=bool).reshape(config.new, -1)
    keys = config.past + config.new
    want = torch_table(sink_mod(case["past"], case["sinks"], case.get("window"), case.get("chunk"),
                                case.get("pad", 0), case.get("pad_side", "left"), keys), config.new, keys)
    assert np.array_equal(ours, want)
    rule = ExpectOptions(**case).rule()  # the numpy evaluator of the same record
    assert np.array_equal(rule.table_rows(slice(None)), want)
    source = lens(config.table(), "flex")["value"]
    namespace: dict = {}
    exec(compile(source, "<mask_mod>", "exec"), namespace)
    assert np.array_equal(torch_table(namespace["mask_mod"], config.new, keys), want)


def test_sdpa_on_the_table_equals_flex_attention_with_the_sink_block_mask():
    past, new, window, sinks = 6, 10, 3, 2
    keys = past + new
    table = np.array(ExploreConfig(past=past, new=new, window=window, sinks=sinks).table().allowed,
                     dtype=bool).reshape(new, keys)
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, n, 4, generator=gen) for n in (new, keys, keys))
    got = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=torch.from_numpy(table))
    block = flex.create_block_mask(sink_mod(past, sinks, window), 1, 1, new, keys, device="cpu")
    want = flex.flex_attention(q, k, v, block_mask=block)
    assert torch.allclose(got, want, atol=1e-5)


def test_hf_and_flash_lenses_say_they_cannot_and_show_the_sinks_missing():
    table = ExploreConfig(**preset_changes("streaming")).table()
    for name in ("hf", "flash"):
        entry = lens(table, name)
        assert any("sink" in line for line in entry["limits"])
        # what the library computes: the window alone, so the sink keys differ
        assert entry["differs"] and all(key < 2 for _, key in entry["differs"])


def test_blocks_equal_create_block_mask():
    past, new, window, sinks = 0, 2048, 300, 4
    big = big_config(dict(past=past, new=new, window=window, sinks=sinks))
    _, blocks = overview(big, 128)
    bm = flex.create_block_mask(sink_mod(past, sinks, window), 1, 1, new, new, device="cpu")
    assert blocks.kv_num_blocks.tolist() == bm.kv_num_blocks[0, 0].tolist()
    assert blocks.full_kv_num_blocks.tolist() == bm.full_kv_num_blocks[0, 0].tolist()


@pytest.mark.parametrize("case", [dict(past=3, new=40, window=7, sinks=3, pad=2),
                                  dict(past=0, new=50, chunk=8, sinks=2, pad=3, pad_side="right"),
                                  dict(past=0, new=30, window=2, sinks=5)])
def test_runs_equal_the_table(case):
    rule = ExpectOptions(**case).rule()
    runs = rule_runs(rule)
    table = rule.table_rows(slice(None))
    assert np.array_equal(runs.band(0, rule.rows, 0, rule.keys), table)
    assert runs.visible() == int(table.sum())


def test_131072_positions_by_intervals():
    n, window, sinks = 131072, 4096, 4
    big = big_config(dict(new=n, window=window, sinks=sinks))
    runs = rule_runs(big.rule)
    p = np.arange(n)
    # closed form: min(p + 1, W) window keys, plus the sinks the window has left behind
    assert runs.visible() == int(np.minimum(p + 1, window).sum() + np.clip(p - window + 1, 0, sinks).sum())
    blocks = from_runs(runs, 128, 128)
    # the sink column of blocks: every block row past the window's reach keeps block 0 partial
    rows_past = (np.arange(n // 128) * 128 - window + 1 > 0)
    assert int(blocks.kv_num_blocks[rows_past].min()) >= 1


def test_the_doctor_reads_sinks_and_expect_states_them():
    case = dict(past=0, new=16, window=4, sinks=2)
    mask = np.array(ExploreConfig(**case).table().allowed, dtype=bool).reshape(16, 16)
    from maskattn_tui.doctor.diagnosis import diagnose

    rule = diagnose(mask).rule
    assert (rule.window, rule.globals) == (4, ((0, 2),))
    assert reading_flags(rule) == "--past 0 --new 16 --window 4 --sinks 2"
    assert expect(mask, ExpectOptions(**case)).count == 0
    # the sink keys a window of 4 leaves behind: key 0 from row 4 on, key 1 from row 5 on
    assert expect(mask, ExpectOptions(past=0, new=16, window=4)).count == (16 - 4) + (16 - 5)


@pytest.mark.parametrize("changes, key", [(dict(sinks=2), "explore_sinks_alone"),
                                          (dict(sinks=2, window=3, causal=False), "explore_needs_causal"),
                                          (dict(sinks=2, window=3, documents=(2, 3)), "explore_combo_documents_sinks")])
def test_refused(changes, key):
    with pytest.raises(MaskattnError) as e:
        ExploreConfig(**changes)
    assert e.value.key == key


def test_cli_bad_sinks_is_one_line_exit_2():
    done = subprocess.run([sys.executable, "-m", "maskattn_tui", "print", "--sinks", "2"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_sink_mask_mod_checked_with_expect_sinks(tmp_path):
    # the mask_mod doctor's text report with --expect (it raised a NameError before)
    mods = tmp_path / "mods.py"
    mods.write_text("def sink_window(b, h, q_idx, kv_idx):\n"
                    "    return (kv_idx <= q_idx) & ((kv_idx > q_idx - 64) | (kv_idx < 4))\n")
    base = [sys.executable, "-m", "maskattn_tui", "doctor", f"{mods}:sink_window", "--q-len", "1024",
            "--kv-len", "1024", "--expect", "--window", "64"]
    done = subprocess.run(base + ["--sinks", "4"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "with sink keys 0-3" in done.stdout and "every cell matches" in done.stdout
    # without the sinks: the sink cells the window leaves behind, 4 a row from row 67 on, fewer before
    done = subprocess.run(base, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    want = sum(min(4, max(0, p - 63)) for p in range(1024))
    assert f"{want} of {1024 * 1024} cells differ" in done.stdout
