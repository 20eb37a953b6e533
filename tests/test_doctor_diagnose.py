"""Diagnoses of masks built the way real code builds them (SDPA, MHA, HF
eager, torch is_causal with a cache, windows, packed documents, padding...),
saved as .npy and read back. Expected values come from how each mask was
built, not from the doctor."""

import numpy as np
import pytest

from maskattn_tui.doctor import diagnose, load_mask
from maskattn_tui.doctor.advice import fixed_of
from maskattn_tui.doctor.report import finding_message
from maskattn_tui.errors import MaskattnError

F32_MIN = float(np.finfo(np.float32).min)


def positions(rows, past):
    return np.arange(rows)[:, None] + past


def causal(rows, keys):
    """SDPA bool mask with a KV cache: torch.ones(L, S).tril(S - L).bool()."""
    return np.tril(np.ones((rows, keys), dtype=bool), keys - rows)


def saved(tmp_path, array, name="mask.npy"):
    path = tmp_path / name
    np.save(path, array)
    return load_mask(path)


def diagnosed(tmp_path, array):
    mask, info = saved(tmp_path, array)
    return diagnose(mask, source=info)


def test_sdpa_bool_with_a_cache(tmp_path):
    d = diagnosed(tmp_path, causal(2, 5))
    assert (d.representation.kind, d.polarity, d.alignment.alignment, d.offset) == ("bool", "attend", "bottom-right", 3)
    assert d.fit.name == "causal" and d.fit.comparison.count == 0
    assert d.leaks == () and d.empty_rows == () and d.pad_keys is None
    assert d.codes() == []
    assert d.api == "sdpa"


def test_multihead_attention_true_means_blocked(tmp_path):
    # torch.triu(torch.ones(L, S), 1).bool(): True = blocked
    d = diagnosed(tmp_path, np.triu(np.ones((6, 6), dtype=bool), 1))
    assert (d.polarity, d.alignment.alignment, d.offset) == ("blocked", "bottom-right", 0)
    assert d.codes() == ["true-means-blocked"] and d.api == "mha"
    assert d.leaks == () and d.empty_rows == ()


def test_hf_eager_additive_with_finfo_min(tmp_path):
    mask = np.zeros((4, 7), dtype=np.float32)
    mask[~causal(4, 7)] = F32_MIN  # HF eager: 0 / finfo(dtype).min
    d = diagnosed(tmp_path, mask)
    rep = d.representation
    assert (rep.kind, rep.minimum, rep.minimum_dtype) == ("additive-finite", F32_MIN, "float32")
    assert (d.polarity, d.alignment.alignment, d.offset) == ("attend", "bottom-right", 3)
    finding = d.findings[d.codes().index("finite-min")]
    assert finding.level == "info" and finding.count == 0  # every row sees a key
    assert d.api == "additive"


def test_hf_eager_left_padded_batch_has_empty_finite_rows(tmp_path):
    attention_mask = np.array([[1, 1, 1, 1, 1], [0, 0, 1, 1, 1]])
    p, k = positions(5, 0), np.arange(5)[None, :]
    allowed = (k <= p)[None] & (attention_mask[:, None, :] == 1)  # (batch, L, S)
    eager = np.where(allowed, 0.0, F32_MIN).astype(np.float32)[:, None]  # (batch, 1, L, S)
    path = tmp_path / "eager.npy"
    np.save(path, eager)
    mask, info = load_mask(path, batch=1, head=0)
    assert info.distinct_slices == 2 and info.shape == (2, 1, 5, 5)
    d = diagnose(mask, source=info)
    assert d.pad_keys == (0, 2) and d.pad_side == "left"
    assert d.empty_rows == (0, 1) and d.pad_query_rows == (0, 1)
    # the rows with no key are exactly the PAD queries: one finding says both
    # (issue 20: rows 0-1 were told three times), the finite minimum as information
    assert {"finite-min", "pad-query-rows"} <= set(d.codes()) and "empty-rows" not in d.codes()
    pad = d.findings[d.codes().index("pad-query-rows")]
    assert pad.params["variant"] == "empty" and pad.count == 2
    assert d.findings[d.codes().index("finite-min")].level == "info"
    first, _ = load_mask(path, batch=0)
    assert diagnose(first).pad_keys is None


def test_torch_is_causal_with_a_cache_is_top_left(tmp_path):
    # is_causal=True with L=2, S=5 builds tril(ones(2, 5)): rows counted from the top-left
    d = diagnosed(tmp_path, np.tril(np.ones((2, 5), dtype=bool), 0))
    assert (d.polarity, d.alignment.alignment, d.offset) == ("attend", "top-left", 0)
    top_left = d.findings[d.codes().index("top-left")]
    # hidden, but a 3-key cache should show them: q3 sees k0-k3, q4 k0-k4
    assert top_left.cells == ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (1, 4))
    # a StaticCache of 5 slots holding just these 2 queries is the same table (3 unused
    # slots): a warning naming both readings, not an error a correct mask would get
    assert top_left.level == "warning" and top_left.params["unused"] == 3
    assert "leak" not in d.codes()


@pytest.mark.parametrize(("rows", "past", "w"), [(2, 4, 3), (16, 0, 4), (64, 64, 17)])
def test_hf_sliding_window(tmp_path, rows, past, w):
    p, k = positions(rows, past), np.arange(rows + past)[None, :]
    d = diagnosed(tmp_path, (k > p - w) & (k <= p))  # HF: q - w < kv <= q
    assert d.window == w and d.fit.name == "window" and d.fit.comparison.count == 0
    assert d.pad_keys is None and d.offset == past
    assert "window" in d.codes() and "leak" not in d.codes()


def test_mistral_reference_window_counts_one_more_key(tmp_path):
    # one_file_ref.py: tril then triu(diagonal=-w): q - w <= kv <= q, w+1 keys
    w = 3
    mask = np.triu(np.tril(np.ones((8, 8), dtype=bool)), -w)
    assert diagnosed(tmp_path, mask).window == w + 1


def test_packed_documents(tmp_path):
    doc = np.repeat([0, 1, 2], [3, 2, 3])
    p, k = positions(8, 0), np.arange(8)[None, :]
    d = diagnosed(tmp_path, (k <= p) & (doc[k] == doc[p]))
    assert d.documents == (3, 2, 3) and d.fit.name == "documents" and d.chunk is None


def test_chunked_attention(tmp_path):
    p, k = positions(10, 0), np.arange(10)[None, :]
    d = diagnosed(tmp_path, (k <= p) & (k // 4 == p // 4))
    assert d.chunk == 4 and d.documents == (4, 4, 2)


def test_prefix_lm(tmp_path):
    d = diagnosed(tmp_path, np.array([[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0],
                                      [1, 1, 1, 1, 0], [1, 1, 1, 1, 1]], dtype=bool))
    assert d.prefix == 2 and d.alignment.alignment == "bottom-right"
    assert d.leaks == ()  # the prefix's own future is meant


def test_speculative_tree(tmp_path):
    rows = ["11110000", "11111000", "11110100", "11111010", "11110101"]
    d = diagnosed(tmp_path, np.array([[c == "1" for c in r] for r in rows]))
    assert d.tree == (-1, 0, 0, 1, 2) and d.offset == 3 and d.fit.comparison.count == 0


def test_left_padded_sdpa_batch(tmp_path):
    # HF sdpa path for attention_mask [0, 0, 1, 1, 1], prefill
    attention_mask = np.array([0, 0, 1, 1, 1])
    p, k = positions(5, 0), np.arange(5)[None, :]
    d = diagnosed(tmp_path, (k <= p) & (attention_mask[k] == 1))
    assert (d.pad_keys, d.pad_side, d.empty_rows, d.pad_query_rows) == ((0, 2), "left", (0, 1), (0, 1))
    assert d.fit.name == "causal" and d.fit.comparison.count == 0


def test_right_padding_keeps_pad_queries_non_empty(tmp_path):
    attention_mask = np.array([1, 1, 1, 0, 0])
    p, k = positions(5, 0), np.arange(5)[None, :]
    d = diagnosed(tmp_path, (k <= p) & (attention_mask[k] == 1))
    assert (d.pad_keys, d.pad_side, d.empty_rows, d.pad_query_rows) == ((3, 5), "right", (), (3, 4))


def test_float_keep_mask(tmp_path):
    # two readings fit (kept: Flax, Keras; added: masks nothing): a warning naming --float-mask
    d = diagnosed(tmp_path, np.tril(np.ones((4, 4), dtype=np.float32)))
    assert d.representation.kind == "float01" and d.polarity == "attend" and d.family == "causal"
    keep = d.findings[d.codes().index("float-keep-mask")]
    assert keep.level == "warning" and keep.count == 6
    assert keep.cells == ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
    assert "--float-mask keep|added" in finding_message(keep, d, "en")
    # said to be added: every cell is visible, an error whose fix (the kept table) reads cleanly
    added = diagnose(np.tril(np.ones((4, 4), dtype=np.float32)), float_mask="added")
    (error,) = [f for f in added.findings if f.level == "error"]
    assert error.code == "float-keep-mask" and error.count == 6 and added.family == "bidirectional"
    assert fixed_of(error)[1] and fixed_of(error)[0].family == "causal"
    assert "float-keep-mask" not in diagnose(np.tril(np.ones((4, 4), dtype=np.float32)), float_mask="keep").codes()


def test_additive_inf(tmp_path):
    d = diagnosed(tmp_path, np.where(causal(3, 3), 0.0, -np.inf).astype(np.float32))
    assert (d.representation.kind, d.representation.minimum) == ("additive-inf", None)
    assert d.codes() == []


def test_one_leaked_cell(tmp_path):
    mask = causal(6, 6)
    mask[2, 4] = True
    d = diagnosed(tmp_path, mask)
    assert d.alignment.alignment == "bottom-right" and d.polarity == "attend"
    assert d.leaks == ((2, 4),) and d.leak_count == 1
    assert d.codes() == ["leak"]


def test_leaks_in_a_cached_window(tmp_path):
    p, k = positions(4, 3), np.arange(7)[None, :]
    mask = (k > p - 4) & (k <= p)
    mask[1, 5], mask[0, 6] = True, True
    d = diagnosed(tmp_path, mask)
    assert d.window == 4 and d.leaks == ((0, 6), (1, 5))


def test_a_hidden_past_cell_is_a_difference_not_a_leak(tmp_path):
    mask = causal(5, 5)
    mask[4, 1] = False
    d = diagnosed(tmp_path, mask)
    assert d.leaks == () and "closest-rule" in d.codes()
    assert d.fit.comparison.cells == ((4, 1),)


def test_inverted_additive_mask(tmp_path):
    # -inf on the past, 0 on the future: the polarity mixed up
    d = diagnosed(tmp_path, np.where(causal(4, 4), -np.inf, 0.0))
    # additive: 0 is visible in every API, so the reading stays 0 = attend and the swap is an error
    assert d.polarity == "attend" and "inverted" in d.codes()
    assert d.findings[d.codes().index("inverted")].level == "error"


def test_all_visible_is_bidirectional(tmp_path):
    d = diagnosed(tmp_path, np.ones((4, 4), dtype=bool))
    assert (d.alignment.alignment, d.polarity, d.fit.name) == ("none", "attend", "bidirectional")
    assert d.codes() == ["bidirectional"] and d.leaks == ()


def test_integer_mask(tmp_path):
    d = diagnosed(tmp_path, np.tril(np.ones((3, 3), dtype=np.int64)))
    assert d.representation.kind == "int01" and d.codes() == []


def test_alibi_bias_plus_minus_inf_is_a_bias_and_a_mask(tmp_path):
    p, k = positions(4, 0), np.arange(4)[None, :]
    bias = np.where(k <= p, -0.5 * (p - k), -np.inf)
    d = diagnosed(tmp_path, bias)
    assert d.representation.kind == "bias-mask" and d.fit.name == "causal" and d.fit.comparison.count == 0
    assert "bias" in d.codes() and d.leak_count == 0


def test_3d_mask_is_read_per_head(tmp_path):
    per_batch = np.stack([causal(4, 4), np.ones((4, 4), dtype=bool)])  # (N, L, S)
    mask, info = saved(tmp_path, per_batch)
    assert info.per_head_broadcast and info.distinct_slices == 2
    d = diagnose(mask, source=info)
    assert "per-head-broadcast" in d.codes()
    one, info1 = saved(tmp_path, per_batch[:1], "one.npy")
    assert not info1.per_head_broadcast and "per-head-broadcast" not in diagnose(one, source=info1).codes()


def test_identical_slices_count_once(tmp_path):
    _, info = saved(tmp_path, np.broadcast_to(causal(3, 3), (2, 4, 3, 3)).copy())
    assert info.distinct_slices == 1


def test_polarity_can_be_forced(tmp_path):
    mask, _ = saved(tmp_path, causal(4, 4))
    d = diagnose(mask, polarity="blocked")
    assert d.polarity == "blocked"


def test_nan_is_refused(tmp_path):
    mask = np.zeros((2, 2))
    mask[0, 1] = np.nan
    with pytest.raises(MaskattnError) as err:
        diagnosed(tmp_path, mask)
    assert err.value.key == "doctor_nan_inf" and "mask.npy" in str(err.value)


def test_cells_are_capped_for_big_masks(tmp_path):
    n, pad = 1000, 30
    mask = causal(n, n)
    mask[:, :pad] = False  # left PAD
    rows = np.arange(pad, n - 1)
    mask[rows, rows + 1] = True  # every real row but the last leaks its next key
    d = diagnosed(tmp_path, mask)
    assert d.pad_keys == (0, pad) and d.leak_count == n - 1 - pad
    assert d.leaks == tuple((int(r), int(r) + 1) for r in rows[:20])
    assert d.empty_row_count == pad and d.empty_rows == tuple(range(20))


def test_off_by_one_diagonal_is_causal_with_leaks(tmp_path):
    # tril(ones, 1): every row sees one future key, so no row ends on its own key
    d = diagnosed(tmp_path, np.tril(np.ones((6, 6), dtype=bool), 1))
    assert d.alignment.alignment == "bottom-right" and d.fit.name == "causal"
    assert d.leaks == tuple((r, r + 1) for r in range(5))


def test_diagnose_is_the_function_after_the_module_is_imported():
    import importlib

    importlib.import_module("maskattn_tui.doctor.diagnosis")
    from maskattn_tui import doctor
    from maskattn_tui.doctor import diagnose as fn

    assert callable(fn) and callable(doctor.diagnose)
    assert fn(np.tril(np.ones((3, 3), dtype=bool))).polarity
