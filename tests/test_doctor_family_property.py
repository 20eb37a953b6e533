"""Random masks of every family, built by index arithmetic (not by the
doctor's rules), in bool and additive form: the doctor reads each one
exactly (the chosen reading or one named beside it) and never gives an
error-level finding on it. Issue 16: "no error-level finding on a mask
that one of the families reads exactly"."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from maskattn_tui.doctor import diagnose


@st.composite
def family_masks(draw):
    family = draw(st.sampled_from(["causal", "static", "bidirectional", "cross", "window", "two-sided",
                                   "prefix", "chunk", "documents", "blocks"]))
    rows = draw(st.integers(2, 12))
    past = draw(st.integers(0, 6))
    keys = rows + past
    p = np.arange(rows)[:, None] + past
    k = np.arange(keys)[None, :]
    if family == "causal":
        allowed = k <= p
    elif family == "static":
        unused = draw(st.integers(1, 5))
        keys += unused
        k = np.arange(keys)[None, :]
        allowed = k <= p
    elif family == "bidirectional":
        p, k = np.arange(rows)[:, None], np.arange(rows)[None, :]
        allowed = np.ones((rows, rows), dtype=bool)
    elif family == "cross":
        keys = draw(st.integers(1, 12))
        allowed = np.ones((rows, keys), dtype=bool)
        k = np.arange(keys)[None, :]
    elif family == "window":
        w = draw(st.integers(2, 5))
        allowed = (k <= p) & (k > p - w)
    elif family == "two-sided":
        p, k = np.arange(rows)[:, None], np.arange(rows)[None, :]
        w = draw(st.integers(1, 3))
        allowed = np.abs(p - k) <= w
    elif family == "prefix":
        allowed = (k <= p) | (k < draw(st.integers(min(3, keys), keys)))
    elif family == "chunk":
        c = draw(st.integers(2, 4))
        allowed = (k <= p) & (k // c == p // c)
    elif family == "documents":
        cuts = sorted(set(draw(st.lists(st.integers(1, keys - 1), min_size=1, max_size=3))))
        doc = np.searchsorted(np.array(cuts), np.arange(keys), side="right")
        allowed = (k <= p) & (doc[k] == doc[p])
    else:  # causal with one bidirectional block of 3 or more
        a = draw(st.integers(past, max(past, keys - 3)))
        b = draw(st.integers(min(a + 3, keys), keys))
        allowed = (k <= p) | ((p >= a) & (p < b) & (k >= a) & (k < b))
    pad = draw(st.integers(0, 2))
    if pad and allowed.shape[1] > pad + 1:
        allowed[:, :pad] = False  # left PAD keys
    return family, allowed


@settings(max_examples=300, deadline=None)
@given(family_masks(), st.booleans())
def test_no_error_on_a_mask_a_family_reads_exactly(case, additive):
    family, allowed = case
    mask = np.where(allowed, 0.0, -np.inf).astype(np.float32) if additive else allowed
    d = diagnose(mask)
    exact = [d.fit.comparison.count] + [s.comparison.count for s in d.alternatives]
    assert 0 in exact, (family, d.family, exact)
    assert [f.code for f in d.findings if f.level == "error"] == [], (family, d.family)


def test_a_two_sided_window_whose_left_cut_falls_on_pad_keys_is_read_exactly():
    # |q - k| <= 2 over 4 positions, keys 0-1 PAD: only row 0's right cut shows
    p, k = np.arange(4)[:, None], np.arange(4)[None, :]
    allowed = (np.abs(p - k) <= 2) & (k >= 2)
    d = diagnose(allowed)
    assert (d.family, d.fit.comparison.count) == ("two-sided-window", 0)
    assert (d.fit.rule.window, d.fit.rule.right, d.fit.rule.pad) == (3, 2, 2)


@st.composite
def new_family_masks(draw):
    """The families issue 31 added, by index arithmetic: packed encoder
    documents, Longformer global tokens with a two-sided window, sink keys
    with a causal window, PAD query rows blanked (Flax, Keras)."""
    family = draw(st.sampled_from(["encoder-documents", "globals", "sinks", "blank-pad"]))
    n = draw(st.integers(8, 16))
    p, k = np.arange(n)[:, None], np.arange(n)[None, :]
    if family == "encoder-documents":
        cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), min_size=1, max_size=3))))
        doc = np.searchsorted(np.array(cuts), np.arange(n), side="right")
        return family, doc[k] == doc[p]
    if family == "globals":
        w = draw(st.integers(1, 2))
        glob = np.zeros(n, dtype=bool)
        glob[draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2, unique=True))] = True
        return family, (np.abs(p - k) <= w) | glob[p[:, 0]][:, None] | glob[k[0]][None, :]
    if family == "sinks":
        w, sinks = draw(st.integers(2, 4)), draw(st.integers(1, 2))
        return family, (k <= p) & ((p - k < w) | (k < sinks))
    pad = draw(st.integers(1, 3))
    real = np.arange(n) < n - pad
    causal = draw(st.booleans())
    allowed = real[k] & real[p] & ((k <= p) if causal else True)
    return family, allowed


@settings(max_examples=200, deadline=None)
@given(new_family_masks())
def test_no_error_on_the_new_families(case):
    family, allowed = case
    d = diagnose(allowed)
    exact = [d.fit.comparison.count] + [s.comparison.count for s in d.alternatives]
    assert 0 in exact, (family, d.family, exact)
    assert [f.code for f in d.findings if f.level == "error"] == [], (family, d.family)


@settings(max_examples=300, deadline=None)
@given(st.one_of(family_masks(), new_family_masks()), st.data())
def test_one_flipped_cell_is_never_passed_in_silence(case, data):
    # a mask of a known family with one cell flipped: an error naming it, a warning (another
    # reading fits as simply: both are named), or the flipped table is itself exactly a
    # family's table (a 2 x 2 causal mask with (0, 1) visible is all visible), said as such
    family, allowed = case
    rows, keys = allowed.shape
    r, k = data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, keys - 1))
    mask = allowed.copy()
    mask[r, k] = not mask[r, k]
    d = diagnose(mask)
    levels = [f.level for f in d.findings]
    assert "error" in levels or "warning" in levels or d.fit.comparison.count == 0, \
        (family, (r, k), d.family, d.codes())
