"""--expect states every family the doctor reads (issue 16, point 6 and
"Families"): two-sided windows, static caches with unused slots,
bidirectional blocks inside a causal mask, PAD keys anywhere. Each mask is
built by the real library (transformers 5 masking_utils with tiny offline
configs and caches, FlexAttention create_mask), saved, and checked with
--expect: the right flags pass, a wrong parameter fails naming the cells.
The explorer's own table is compared with the library's cell for cell, and
the doctor's reading, told back as --expect flags, passes its own check."""

import shlex
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from transformers import MistralConfig  # noqa: E402
from transformers import masking_utils as mu  # noqa: E402
from transformers.cache_utils import DynamicCache, StaticCache  # noqa: E402

from maskattn_tui.cli.commands import main  # noqa: E402
from maskattn_tui.doctor import diagnose, load_mask  # noqa: E402
from maskattn_tui.doctor.expect_args import reading_flags  # noqa: E402
from maskattn_tui.explore.config import ExploreConfig  # noqa: E402

from helpers import tiny_config  # noqa: E402


config = tiny_config


def filled_cache(cls, tokens, **kw):
    cache = cls(config=config(), **kw)
    k = torch.zeros(1, 2, tokens, 16)
    cache.update(k, k, 0)
    return cache


def saved(tmp_path, tensor) -> str:
    path = tmp_path / "mask.npy"
    np.save(path, tensor.numpy())
    return str(path)


def table(tensor) -> np.ndarray:
    return tensor.numpy().reshape(tensor.shape[-2], tensor.shape[-1])


def two_sided(w=2, n=8):
    return mu.create_bidirectional_sliding_window_mask(
        config=config(MistralConfig, sliding_window=w), inputs_embeds=torch.zeros(1, n, 32),
        attention_mask=torch.ones(1, n, dtype=torch.long))


def static_cache():
    # StaticCache(max_cache_len=12) holding 5 tokens, 3 new: keys 8-11 are unused slots
    cache = filled_cache(StaticCache, 5, max_cache_len=12)
    return mu.create_causal_mask(config=config(), inputs_embeds=torch.zeros(1, 3, 32),
                                 attention_mask=torch.ones(1, 8, dtype=torch.long), cache=cache,
                                 position_ids=torch.arange(5, 8)[None])


def image_blocks():
    # Gemma 3 / PaliGemma image tokens: positions 2-4 and 6-8 are two bidirectional blocks
    ids = torch.tensor([[-1, -1, 0, 0, 0, -1, 1, 1, 1, -1]])
    return mu.create_causal_mask(config=config(), inputs_embeds=torch.zeros(1, 10, 32),
                                 attention_mask=torch.ones(1, 10, dtype=torch.long), cache=None,
                                 position_ids=torch.arange(10)[None], block_sequence_ids=ids)


def pad_in_the_middle():
    # right padding, then generation with a cache: keys 3-4 are PAD for every row
    cache = filled_cache(DynamicCache, 5)
    return mu.create_causal_mask(config=config(), inputs_embeds=torch.zeros(1, 2, 32),
                                 attention_mask=torch.tensor([[1, 1, 1, 0, 0, 1, 1]]), cache=cache,
                                 position_ids=torch.tensor([[3, 4]]))


# (mask builder, the flags that state it, a wrong parameter, cells that wrong one gets wrong)
CASES = {
    "two-sided-window": (two_sided, ["--no-causal", "--window", "2"], ["--no-causal", "--window", "1"],
                         ["(0,2)", "(2,0)", "(7,5)"]),
    "static-cache": (static_cache, ["--past", "5", "--cache-slots", "4"], ["--past", "4", "--cache-slots", "5"],
                     ["(0,5)", "(1,6)", "(2,7)"]),
    "blocks": (image_blocks, ["--bidirectional", "2-4,6-8"], ["--bidirectional", "2-4,6-7"], ["(6,8)", "(7,8)"]),
    "pad-keys": (pad_in_the_middle, ["--past", "5", "--pad-keys", "3-4"], ["--past", "5", "--pad-keys", "3"],
                 ["(0,4)", "(1,4)"]),
}


@pytest.mark.parametrize("family", list(CASES))
def test_expect_states_the_library_mask(tmp_path, capsys, family):
    build, right, _, _ = CASES[family]
    path = saved(tmp_path, build())
    assert main(["doctor", path, "--expect", *right]) == 0
    assert "matches" in capsys.readouterr().out


@pytest.mark.parametrize("family", list(CASES))
def test_a_wrong_parameter_fails_naming_the_cells(tmp_path, capsys, family):
    build, _, wrong, cells = CASES[family]
    path = saved(tmp_path, build())
    assert main(["doctor", path, "--expect", *wrong]) == 1
    out = capsys.readouterr().out
    assert "differ" in out and all(c in out for c in cells), out


@pytest.mark.parametrize("family", list(CASES))
def test_the_doctor_reading_told_as_flags_passes_its_own_check(tmp_path, capsys, family):
    build = CASES[family][0]
    path = saved(tmp_path, build())
    mask, info = load_mask(path)
    flags = reading_flags(diagnose(mask, source=info).rule)
    assert flags is not None and main(["doctor", path, "--expect", *flags.split()]) == 0
    capsys.readouterr()
    assert main(["doctor", path]) == 0
    assert f"--expect {flags}" in capsys.readouterr().out  # the report's "to check" line


# --- the explorer's own table equals the library's, cell for cell ------------------------


def test_explore_two_sided_window_is_hf_bidirectional_sliding_window():
    for w in (1, 2, 3):
        c = ExploreConfig(past=0, new=8, causal=False, window=w)
        assert np.array_equal(np.array(c.table().allowed), table(two_sided(w))), w
        # |q - k| <= w, written again
        q, k = np.arange(8)[:, None], np.arange(8)[None, :]
        assert np.array_equal(np.array(c.table().allowed), np.abs(q - k) <= w)


def test_explore_window_right_is_flex_attention_asymmetric_window():
    from torch.nn.attention.flex_attention import create_mask

    left, right = 2, 1
    flex = create_mask(lambda b, h, q, kv: (q - kv <= left) & (kv - q <= right), 1, 1, 8, 8, device="cpu")
    c = ExploreConfig(past=0, new=8, causal=False, window=left, window_right=right)
    assert np.array_equal(np.array(c.table().allowed), table(flex))
    assert {cell for row in c.table().cells for cell in row} == {"allowed", "window"}


def test_explore_static_cache_is_hf_static_cache():
    c = ExploreConfig(past=5, new=3, cache_slots=4)
    assert np.array_equal(np.array(c.table().allowed), table(static_cache()))
    assert [c.table().cells[0][k] for k in range(8, 12)] == ["future+slot"] * 4
    assert len(c.inputs()[1]) == 12 and c.inputs()[2][8:] == ((0.0,),) * 4  # the cache's zeros
    with_pad = ExploreConfig(past=5, new=3, causal=False, cache_slots=2)
    assert [row[8:] for row in with_pad.table().cells] == [("slot", "slot")] * 3


def test_explore_blocks_are_hf_block_sequence_ids():
    c = ExploreConfig(past=0, new=10, bidirectional="2-4,6-8")
    assert c.bidirectional == ((2, 4), (6, 8))
    assert np.array_equal(np.array(c.table().allowed), table(image_blocks()))


def test_explore_blocks_inside_a_sliding_window_are_hf_sliding_window_with_blocks():
    ids = torch.tensor([[-1, -1, 0, 0, 0, 0, -1, -1, -1, -1]])
    m = mu.create_sliding_window_causal_mask(
        config=config(MistralConfig, sliding_window=2), inputs_embeds=torch.zeros(1, 10, 32),
        attention_mask=torch.ones(1, 10, dtype=torch.long), cache=None, position_ids=torch.arange(10)[None],
        block_sequence_ids=ids)
    c = ExploreConfig(past=0, new=10, window=2, bidirectional="2-5")
    assert np.array_equal(np.array(c.table().allowed), table(m))


def test_explore_pad_keys_are_hf_padding_in_the_middle():
    c = ExploreConfig(past=5, new=2, pad_keys="3-4")
    assert np.array_equal(np.array(c.table().allowed), table(pad_in_the_middle()))
    assert c.pad_positions == (3, 4) and c.query_is_pad == (False, False)


# --- bad values: one line, exit 2 ------------------------------------------------------------


@pytest.mark.parametrize("argv, words", [
    (["--pad-keys", "3-x"], "e.g. 3-4,7"),
    (["--pad-keys", "9"], "0–4"),
    (["--bidirectional", "3-1"], "ends before it starts"),
    (["--bidirectional", "0-2,2-3"], "overlap"),
    (["--bidirectional", "1-2", "--no-causal"], "causal"),
    (["--window-right", "1", "--window", "2"], "--no-causal"),
    (["--window-right", "1", "--no-causal"], "needs a window"),
    (["--cache-slots", "-1"], "from 0 to 32"),
])
def test_bad_values_are_one_line(capsys, argv, words):
    assert main(["print", "--past", "2", "--new", "3", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and words in err, err


def test_expect_refuses_a_bad_value_in_one_line(tmp_path, capsys):
    path = saved(tmp_path, image_blocks())
    assert main(["doctor", path, "--expect", "--bidirectional", "4-12"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--bidirectional" in err and "position 12 is outside the positions 0–9" in err


def test_the_big_path_refuses_what_it_cannot_draw(capsys):
    for flag, value in (("--cache-slots", "3"), ("--pad-keys", "3"), ("--bidirectional", "2-4")):
        assert main(["print", "--past", "0", "--new", "40000", flag, value]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and f"{flag} is not available beyond the explorer's 32 + 32" in err


def test_no_check_line_where_expect_would_not_hold(tmp_path, capsys):
    # a Hugging Face pair is no file; a file whose batches differ fails one --expect
    assert main(["doctor", "--attention-mask", "0,0,1,1,1"]) == 0
    assert "--expect" not in capsys.readouterr().out.split("findings:")[0]
    two = np.stack([np.tril(np.ones((4, 4), bool))] * 2)
    two[1][:, 0] = False
    np.save(tmp_path / "two.npy", two)
    # ... unless it names the slice it was read from: then it passes on that slice
    assert main(["doctor", str(tmp_path / "two.npy")]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "To check this reading" in ln)
    assert line.endswith("--batch 0")
    assert main(shlex.split(line.split("maskattn-tui ", 1)[1])) == 0
