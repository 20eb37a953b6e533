"""The API lens against the libraries' tables and facts (checked on CPU with torch and transformers)."""

from __future__ import annotations

import json
import math
import random
import re

import pytest

from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore import LENS_NAMES, ExploreConfig, lens, lenses, parse_lens_names
from maskattn_tui.explore.api_lens import bottom_right, top_left

T, F = True, False

# The running example: past = 3, new = 2 (L = 2, S = 5)
BOTTOM_RIGHT = [[T, T, T, T, F], [T, T, T, T, T]]
TOP_LEFT = [[T, F, F, F, F], [T, T, F, F, F]]


@pytest.fixture
def example():
    return ExploreConfig(past=3, new=2).table()


def test_the_two_alignments_of_the_running_example():
    assert bottom_right(2, 5) == BOTTOM_RIGHT
    assert top_left(2, 5) == TOP_LEFT
    assert bottom_right(3, 3) == top_left(3, 3)  # the same when L == S


def test_sdpa_bool_true_means_attend(example):
    e = lens(example, "sdpa-bool")
    assert e["api"] == "torch.nn.functional.scaled_dot_product_attention"
    assert (e["argument"], e["dtype"], e["shape"]) == ("attn_mask", "bool", [2, 5])
    assert e["value"] == BOTTOM_RIGHT
    assert e["matches"] and e["differs"] == []


def test_sdpa_float_is_zero_or_minus_inf_as_text(example):
    e = lens(example, "sdpa-float")
    assert e["value"] == [[0.0, 0.0, 0.0, 0.0, "-inf"], [0.0] * 5]
    assert e["dtype"] == "float"


def test_mha_attn_mask_true_means_blocked(example):
    e = lens(example, "mha-attn-mask")
    assert e["api"] == "torch.nn.MultiheadAttention"
    assert e["value"] == [[F, F, F, F, T], [F] * 5]
    assert e["table"] == BOTTOM_RIGHT and e["matches"]


def test_mha_key_padding_mask_is_per_key_n_by_s():
    table = ExploreConfig(past=3, new=2, pad=1, pad_side="left").table()
    e = lens(table, "mha-key-padding")
    assert (e["argument"], e["shape"]) == ("key_padding_mask", [1, 5])
    assert e["value"] == [[T, F, F, F, F]]  # True = this key is padding
    assert e["companion"]["argument"] == "attn_mask"
    assert e["companion"]["value"] == [[F, F, F, F, T], [F] * 5]  # the causal part, True = blocked
    assert e["table"] == [[F, T, T, T, F], [F, T, T, T, T]] and e["matches"]


def test_hugging_face_attention_mask_is_one_per_real_token_over_past_plus_new(example):
    e = lens(example, "hf")
    assert e["value"] == [[1, 1, 1, 1, 1]] and e["shape"] == [1, 5]
    assert e["table"] == BOTTOM_RIGHT and e["matches"]
    padded = lens(ExploreConfig(past=3, new=2, pad=1).table(), "hf")
    assert padded["value"] == [[0, 1, 1, 1, 1]]
    assert padded["matches"]
    right = lens(ExploreConfig(past=1, new=3, pad=1, pad_side="right").table(), "hf")
    assert right["value"] == [[1, 1, 1, 0]]


def test_hugging_face_decoders_are_always_causal():
    e = lens(ExploreConfig(past=3, new=2, causal=False).table(), "hf")
    assert e["table"] == BOTTOM_RIGHT
    assert not e["matches"] and e["differs"] == [[0, 4]]


def test_flash_causal_flag_is_bottom_right_since_2_1_and_top_left_in_2_0(example):
    e = lens(example, "flash")
    assert e["value"] is True and e["dtype"] == "flag"
    assert e["table"] == BOTTOM_RIGHT and e["matches"]
    assert e["companion"]["table"] == TOP_LEFT
    # a flag cannot express PAD
    assert not lens(ExploreConfig(past=3, new=2, pad=1).table(), "flash")["matches"]


def test_torch_is_causal_is_top_left_and_hides_the_history(example):
    e = lens(example, "torch-is-causal")
    assert e["argument"] == "is_causal" and e["value"] is True
    assert e["table"] == TOP_LEFT
    assert not e["matches"]
    assert sorted(map(tuple, e["differs"])) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (1, 4)]
    assert e["companion"]["value"] == BOTTOM_RIGHT  # causal_lower_right(L, S)
    assert lens(ExploreConfig(past=0, new=3).table(), "torch-is-causal")["matches"]


def _empty(e):
    return [(x["policy"], x["evidence"]) for x in e["empty_row"]]


def test_what_each_api_returns_for_a_row_with_no_visible_key(example):
    assert _empty(lens(example, "sdpa-bool")) == [("zeros", "checked"), ("nan", "doc")]
    assert _empty(lens(example, "sdpa-float")) == [("zeros", "checked"), ("nan", "doc")]
    assert _empty(lens(example, "torch-is-causal")) == [("zeros", "checked"), ("nan", "doc")]
    mha = [("nan", "checked"), ("bias", "checked"), ("nan", "checked")]
    assert _empty(lens(example, "mha-attn-mask")) == mha
    assert _empty(lens(example, "mha-key-padding")) == mha
    # float16 is uniform only for small scores (test_lens_hf_float16.py runs it against torch)
    assert _empty(lens(example, "hf")) == [("uniform", "checked"), ("uniform", "checked"), ("nan", "checked"),
                                           ("zeros", "checked")]
    assert _empty(lens(example, "flash")) == [("zeros", "doc")]
    assert "need_weights=True" in lens(example, "mha-attn-mask")["empty_row"][0]["path"]
    assert "out_proj.bias" in lens(example, "mha-attn-mask")["empty_row"][1]["text"]
    assert "finfo(dtype).min" in lens(example, "hf")["empty_row"][0]["text"]


def _float32(x: float) -> float:
    """x rounded to float32 as a C cast does (what torch's .to(float32) does)."""
    import ctypes

    return ctypes.c_float(x).value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hf_eager_empty_row_depends_on_the_dtype(example, lang):
    # transformers' eager_attention_forward adds finfo(dtype).min and takes
    # the softmax in float32. finfo(float64).min does not fit in float32: it
    # becomes -inf, a row of -inf gives 0/0 = NaN; the other dtypes' minimum
    # stays finite in float32, so a fully masked row is uniform -- in
    # float16 only for small scores: -65504 is spaced 32 apart there.
    import sys

    assert math.isinf(_float32(-sys.float_info.max))           # finfo(float64).min
    for finfo_min in (-3.4028234663852886e38, -65504.0, -3.3895313892515355e38):  # f32, f16, bf16
        assert math.isfinite(_float32(finfo_min))
    row = [-math.inf, -math.inf]
    assert math.isnan(math.exp(row[0] - max(row)))             # softmax: exp(-inf - -inf) = NaN
    uniform, f16, f64 = lens(example, "hf", lang)["empty_row"][:3]
    assert uniform["policy"] == "uniform" and "float64" not in uniform["path"]
    assert all(name in uniform["path"] for name in ("float32", "bfloat16")) and not re.search(r"\bfloat16", uniform["path"])
    assert "float16" in f16["path"] and "16" in f16["text"]
    assert f64["policy"] == "nan" and "float64" in f64["path"] and "NaN" in f64["text"]
    assert "float32" in f64["text"]  # says why: the softmax runs in float32


def test_empty_rows_are_reported_per_api():
    table = ExploreConfig(past=0, new=3, pad=2).table()
    assert lens(table, "sdpa-bool")["empty_rows"] == [0, 1]
    assert lens(table, "torch-is-causal")["empty_rows"] == []  # the flag ignores PAD


def test_lens_names_and_parsing():
    assert LENS_NAMES == ("sdpa-bool", "sdpa-float", "mha-attn-mask", "mha-key-padding",
                          "hf", "flash", "torch-is-causal", "flex")
    assert parse_lens_names("all") == LENS_NAMES
    assert parse_lens_names("flash, hf") == ("hf", "flash")
    assert parse_lens_names(["sdpa-bool", "all"]) == LENS_NAMES
    for bad in ("bogus", "hf,bogus", ""):
        with pytest.raises(MaskattnError) as info:
            parse_lens_names(bad)
        assert "unknown lens" in str(info.value) and "sdpa-bool" in str(info.value)
    with pytest.raises(MaskattnError):
        lens(ExploreConfig().table(), "keras")


def test_all_lenses_are_strict_json_in_both_languages():
    table = ExploreConfig(past=3, new=2, pad=2, pad_side="right", causal=False).table()
    for lang in ("en", "zh"):
        data = lenses(table, "all", lang)
        assert [e["lens"] for e in data] == list(LENS_NAMES)
        text = json.dumps(data, allow_nan=False, ensure_ascii=False)
        json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard constant {c}"))
        for e in data:
            assert e["note"] and e["meaning"]
    zh = lenses(table, "mha-attn-mask", "zh")[0]
    assert zh["meaning"] == "True = 屏蔽"


def test_encodings_agree_with_the_table_over_many_configurations():
    rng = random.Random(3)
    for _ in range(100):
        past, new = rng.randint(0, 8), rng.randint(1, 8)
        c = ExploreConfig(past=past, new=new, pad=rng.randint(0, min(3, past + new)),
                          pad_side=rng.choice(("left", "right")), causal=rng.random() < 0.7)
        table = c.table()
        allowed = [list(r) for r in table.allowed]
        assert lens(table, "sdpa-bool")["value"] == allowed
        assert lens(table, "sdpa-float")["value"] == [[0.0 if x else "-inf" for x in r] for r in allowed]
        assert lens(table, "mha-attn-mask")["value"] == [[not x for x in r] for r in allowed]
        assert lens(table, "mha-key-padding")["value"] == [list(c.key_is_pad)]
        assert lens(table, "hf")["value"] == [[0 if p else 1 for p in c.key_is_pad]]
        if c.causal:
            # with absolute positions past + r, the offset-aware spellings agree
            assert lens(table, "mha-key-padding")["matches"]
            assert lens(table, "hf")["matches"]
            # flags ignore PAD: flash is bottom-right, is_causal top-left (by hand)
            n = past + new
            br = [[j <= past + r for j in range(n)] for r in range(new)]
            tl = [[j <= r for j in range(n)] for r in range(new)]
            assert lens(table, "flash")["matches"] == (br == allowed)
            assert lens(table, "torch-is-causal")["matches"] == (tl == allowed)
            if c.pad == 0:
                assert lens(table, "flash")["matches"]
                assert lens(table, "torch-is-causal")["matches"] == (past == 0)
