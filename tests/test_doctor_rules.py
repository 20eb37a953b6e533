"""The doctor's rule tables (doctor.rules, doctor.expect) against published
tables (attention-gym's mask_mods, the four window conventions), independent per-cell formulas, the
explorer's own table, and themselves (intervals vs cells, arithmetic vs
cell-by-cell comparison); and the block overview."""

import itertools
import random

import numpy as np
import pytest

from maskattn_tui.doctor.blocks import block_overview
from maskattn_tui.doctor.compare import compare
from maskattn_tui.doctor.expect import ExpectOptions, expected_allowed
from maskattn_tui.doctor.representation import Reading, classify
from maskattn_tui.doctor.rows import scan
from maskattn_tui.doctor.rules import Rule
from maskattn_tui.errors import MaskattnError


def table(text: str) -> np.ndarray:
    return np.array([[c == "1" for c in row] for row in text.split("/")])


# The published tables (HF window decode, attention-gym prefix-LM, documents,
# jetspec tree) are checked on both evaluators at once in test_mask_patterns.py.


def formula(o: ExpectOptions) -> np.ndarray:
    """The rules cell by cell, written out plainly (the reference)."""
    keys = o.past + o.new
    pads = set(range(o.pad)) if o.pad_side == "left" else set(range(keys - o.pad, keys))
    doc = None
    if o.documents:
        doc = [i for i, n in enumerate(o.documents) for _ in range(n)]
    out = np.zeros((o.new, keys), dtype=bool)
    for r in range(o.new):
        p = o.past + r
        for k in range(keys):
            if o.tree is not None:
                ancestors, node = set(), r
                while node >= 0:
                    ancestors.add(node)
                    node = o.tree[node]
                ok = k < o.past or (k - o.past) in ancestors
            else:
                ok = k <= p or not o.causal
            if o.prefix and k < o.prefix:
                ok = True
            if o.window is not None:
                ok = ok and p - o.window < k and (o.causal or k < p + o.window)
            if o.chunk is not None:  # counted from the first real token (HF chunked_overlay)
                origin = o.pad if o.pad_side == "left" else 0
                ok = ok and (k - origin) // o.chunk == (p - origin) // o.chunk
            if doc is not None:
                ok = ok and doc[k] == doc[p]
            out[r, k] = ok and k not in pads
    return out


def random_options(rng: random.Random) -> ExpectOptions:
    past, new = rng.randint(0, 9), rng.randint(1, 9)
    keys = past + new
    kind = rng.choice(["plain", "window", "chunk", "prefix", "documents", "tree"])
    extra = {}
    if kind == "window":
        extra["window"] = rng.randint(1, keys)
    elif kind == "chunk":
        extra["chunk"] = rng.randint(1, keys)
    elif kind == "prefix":
        extra["prefix"] = rng.randint(0, keys)
    elif kind == "documents":
        cuts = sorted(rng.sample(range(1, keys), rng.randint(0, min(3, keys - 1)))) if keys > 1 else []
        extra["documents"] = tuple(np.diff([0, *cuts, keys]).tolist())
    elif kind == "tree":
        extra["tree"] = tuple(rng.randint(-1, i - 1) for i in range(new))
    return ExpectOptions(past=past, new=new, pad=rng.randint(0, keys), pad_side=rng.choice(["left", "right"]),
                         causal=kind in ("tree", "window", "prefix") or rng.random() < 0.8, **extra)


@pytest.mark.parametrize("seed", range(300))
def test_numpy_rules_match_the_plain_formula(seed):
    options = random_options(random.Random(seed))
    assert (expected_allowed(options) == formula(options)).all(), options


@pytest.mark.parametrize("seed", range(300))
def test_intervals_describe_the_same_table(seed):
    options = random_options(random.Random(seed))
    rule = options.rule()
    runs = rule.intervals()
    if runs is None:
        assert options.tree is not None
        return
    cells = rule.table_rows(slice(None))
    keys = np.arange(rule.keys)[None, :]
    lo, hi = runs[0][:, None], runs[1][:, None]
    assert ((keys >= lo) & (keys <= hi) == cells).all(), options


@pytest.mark.parametrize(("past", "new", "pad", "side", "causal"),
                         [(3, 2, 0, "left", True), (0, 5, 2, "left", True), (4, 3, 2, "right", True),
                          (32, 32, 5, "left", True), (6, 4, 3, "left", False), (0, 1, 1, "right", True)])
def test_the_explorer_table_and_the_numpy_rule_agree(past, new, pad, side, causal):
    from maskattn_tui.explore.config import ExploreConfig

    options = ExpectOptions(past=past, new=new, pad=pad, pad_side=side, causal=causal)
    explorer = np.array(ExploreConfig(past=past, new=new, pad=pad, pad_side=side, causal=causal).table().allowed)
    assert (expected_allowed(options) == explorer).all()
    assert (options.rule().table_rows(slice(None)) == explorer).all()


def test_big_tables_need_no_explorer():
    # ExploreConfig stops at 32 + 32; the doctor's tables go on
    got = expected_allowed(ExpectOptions(past=100, new=300, pad=7))
    p = np.arange(300)[:, None] + 100
    k = np.arange(400)[None, :]
    assert (got == ((k <= p) & (k >= 7))).all()
    band = expected_allowed(ExpectOptions(past=100, new=300, pad=7), rows=(10, 20))
    assert (band == got[10:20]).all()


@pytest.mark.parametrize(("values", "key"), [
    (dict(past=2, new=2, documents=(1, 2)), "explore_documents_sum"),
    (dict(past=0, new=3, tree=(-1, 1, 0)), "explore_tree_parent"),
    (dict(past=0, new=3, tree=(-1, 0)), "explore_tree_length"),
    (dict(past=0, new=3, pad=4), "explore_pad_range"),
    (dict(past=0, new=3, prefix=5), "explore_range"),
    (dict(past=0, new=3, window=0), "explore_range"),
])
def test_bad_options_are_refused_as_the_explorer_refuses_them(values, key):
    with pytest.raises(MaskattnError) as err:
        ExpectOptions(**values)
    assert err.value.key == key


@pytest.mark.parametrize(("values", "key"), [
    (dict(rows=2, keys=4, offset=2, documents=(1, 2)), "doctor_documents_sum"),
    (dict(rows=3, keys=3, offset=0, tree=(-1, 1, 0)), "doctor_tree_parent"),
    (dict(rows=3, keys=3, offset=0, pad=4), "doctor_pad_range"),
    (dict(rows=3, keys=3, offset=0, window=0), "doctor_positive"),
])
def test_bad_rules_are_refused(values, key):
    # the rules the inference builds keep their own checks
    with pytest.raises(MaskattnError) as err:
        Rule(**values)
    assert err.value.key == key


def test_a_bidirectional_window_for_the_inference():
    # not causal: |p - k| < W (explore and --expect refuse it; the inference may report it)
    got = Rule(rows=5, keys=5, offset=0, causal=False, window=2).table_rows(slice(None))
    p, k = np.arange(5)[:, None], np.arange(5)[None, :]
    assert (got == (abs(p - k) < 2)).all()


@pytest.mark.parametrize("seed", range(200))
def test_arithmetic_and_cell_by_cell_comparisons_agree(seed):
    rng = random.Random(seed)
    options = random_options(rng)
    rule = options.rule()
    if rule.tree is not None:
        rule = rule.replace(tree=None)
    mask = rule.table_rows(slice(None)).copy()
    for _ in range(rng.randint(0, 3)):  # a few cells flipped
        mask[rng.randrange(mask.shape[0]), rng.randrange(mask.shape[1])] ^= True
    reading = Reading(mask, classify(mask))
    stats = scan(reading)
    fast = compare(reading, stats, rule)

    class CellsOnly:  # the same rule without intervals: compared cell by cell
        causal = rule.causal
        positions, table_rows = rule.positions, rule.table_rows

        @staticmethod
        def intervals():
            return None

    slow = compare(reading, stats, CellsOnly())
    assert fast == slow
    want = rule.table_rows(slice(None))
    assert fast.count == int((mask != want).sum())
    future = np.arange(mask.shape[1])[None, :] > rule.positions(slice(None))[:, None]
    leaks = mask & ~want & future if rule.causal else np.zeros_like(mask)
    assert fast.leak_count == int(leaks.sum())
    assert list(fast.leaks) == [tuple(map(int, c)) for c in np.argwhere(leaks)[:20]]
    assert list(fast.cells) == [tuple(map(int, c)) for c in np.argwhere(mask != want)[:20]]


def test_block_overview_of_a_causal_mask():
    # FlexAttention, causal 8x8 with BLOCK_SIZE=2: diagonal blocks partial, below full
    got = block_overview(np.tril(np.ones((8, 8), bool)), 2)
    assert got.tolist() == [[1, 0, 0, 0], [2, 1, 0, 0], [2, 2, 1, 0], [2, 2, 2, 1]]


@pytest.mark.parametrize(("rows", "keys", "block"), list(itertools.product((5, 16, 37), (7, 16, 41), (1, 3, 8))))
def test_block_overview_matches_per_block_counts(rows, keys, block):
    rng = np.random.default_rng(rows * keys * block)
    mask = rng.random((rows, keys)) < 0.5
    mask[: rows // 2] = np.tril(np.ones((rows // 2, keys), bool))
    got = block_overview(mask, block)
    for i, j in itertools.product(range(got.shape[0]), range(got.shape[1])):
        tile = mask[i * block:(i + 1) * block, j * block:(j + 1) * block]
        assert got[i, j] == (0 if not tile.any() else 2 if tile.all() else 1)


def test_block_overview_reads_additive_masks_and_polarity():
    additive = np.where(np.tril(np.ones((4, 4), bool)), 0.0, -np.inf)
    assert block_overview(additive, 2).tolist() == [[1, 0], [2, 1]]
    mha = np.triu(np.ones((4, 4), bool), 1)  # True = blocked
    assert block_overview(mha, 2, polarity="blocked").tolist() == [[1, 0], [2, 1]]
