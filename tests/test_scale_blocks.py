"""The analytic block map of every rule equals torch's create_block_mask on
CPU for the same mask written as a mask_mod (sizes that run in CI), and its
picture equals str(block_mask)."""

import numpy as np
import pytest

from maskattn_tui.doctor.rules import Rule
from maskattn_tui.scale.blocks import EMPTY, FULL, PARTIAL, from_runs
from maskattn_tui.scale.intervals import rule_runs

torch = pytest.importorskip("torch")
from torch.nn.attention.flex_attention import create_block_mask  # noqa: E402


def torch_kind(bm) -> np.ndarray:
    """EMPTY / PARTIAL / FULL per block, read from the BlockMask's indices."""
    n_q, n_k = bm.kv_num_blocks.shape[-1], bm.kv_indices.shape[-1]
    kind = np.zeros((n_q, n_k), dtype=np.uint8)
    for nums, idx, value in ((bm.kv_num_blocks, bm.kv_indices, PARTIAL),
                             (bm.full_kv_num_blocks, bm.full_kv_indices, FULL)):
        for i in range(n_q):
            n = int(nums[0, 0, i])
            kind[i, idx[0, 0, i, :n].numpy()] = value
    return kind


def mask_mod_of(rule: Rule):
    """The rule as a FlexAttention mask_mod, written independently of
    doctor.rules (local indices: q_idx + offset is the query's position)."""
    off, keys = rule.offset, rule.keys
    doc = None
    if rule.documents is not None:
        doc = torch.repeat_interleave(torch.arange(len(rule.documents)), torch.tensor(rule.documents))

    def mod(b, h, q_idx, kv_idx):
        p = q_idx + off
        ok = (kv_idx <= p) if rule.causal else (kv_idx >= 0)
        if rule.prefix:
            ok = ok | (kv_idx < rule.prefix)
        if rule.window is not None:
            ok = ok & (kv_idx > p - rule.window)
            if not rule.causal:
                ok = ok & (kv_idx < p + rule.window)
        if rule.chunk is not None:
            o = rule.pad if rule.pad_side == "left" else 0
            ok = ok & ((kv_idx - o) // rule.chunk == (p - o) // rule.chunk)
        if doc is not None:
            ok = ok & (doc[kv_idx] == doc[p])
        if rule.pad:
            ok = ok & ((kv_idx >= rule.pad) if rule.pad_side == "left" else (kv_idx < keys - rule.pad))
        return ok
    return mod


CASES = {
    "causal": dict(rows=512, keys=512, offset=0),
    "causal-offset": dict(rows=200, keys=520, offset=320),
    "bidirectional": dict(rows=300, keys=300, offset=0, causal=False),
    "window": dict(rows=640, keys=640, offset=0, window=100),
    "window-bidirectional": dict(rows=400, keys=400, offset=0, causal=False, window=37),
    "chunk": dict(rows=512, keys=512, offset=0, chunk=96),
    "chunk-left-pad": dict(rows=500, keys=500, offset=0, chunk=64, pad=13),
    "prefix": dict(rows=600, keys=600, offset=0, prefix=150),
    "prefix-window": dict(rows=600, keys=600, offset=0, prefix=150, window=64),
    "documents": dict(rows=700, keys=700, offset=0, documents=(250, 1, 300, 149)),
    "documents-window": dict(rows=700, keys=700, offset=0, documents=(250, 150, 300), window=40),
    "pad-left": dict(rows=384, keys=384, offset=0, pad=70),
    "pad-right": dict(rows=384, keys=384, offset=0, pad=70, pad_side="right"),
    "decode": dict(rows=1, keys=1000, offset=999, window=256),
}


@pytest.mark.parametrize("block", [16, 32, 128, (32, 64)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_blocks_equal_create_block_mask(name, block):
    rule = Rule(**CASES[name])
    qb, kb = (block, block) if isinstance(block, int) else block
    ours = from_runs(rule_runs(rule), qb, kb)
    bm = create_block_mask(mask_mod_of(rule), 1, 1, rule.rows, rule.keys, device="cpu", BLOCK_SIZE=block)
    assert np.array_equal(ours.kind, torch_kind(bm))
    assert np.array_equal(ours.kv_num_blocks, bm.kv_num_blocks[0, 0].numpy())
    assert np.array_equal(ours.full_kv_num_blocks, bm.full_kv_num_blocks[0, 0].numpy())
    assert ours.sparsity() == pytest.approx(bm.sparsity())
    assert ours.picture() == str(bm)


def test_tree_blocks_equal_create_block_mask():
    parents = (-1, 0, 0, 1, 2, 2, 3, -1, 7, 8) * 4
    parents = tuple(p if p < 0 else p + 10 * (i // 10) for i, p in enumerate(parents))
    rule = Rule(rows=len(parents), keys=100 + len(parents), offset=100, tree=parents)
    allowed = torch.from_numpy(rule.table_rows(slice(None)))  # the doctor's own tree table, as data

    def mod(b, h, q_idx, kv_idx):
        return allowed[q_idx, kv_idx]

    for block in (1, 4, 16):
        ours = from_runs(rule_runs(rule), block, block)
        bm = create_block_mask(mod, 1, 1, rule.rows, rule.keys, device="cpu", BLOCK_SIZE=block)
        assert np.array_equal(ours.kind, torch_kind(bm))
        assert ours.picture() == str(bm)


def test_tiny_table_sparsity_is_negative_as_torch_says():
    rule = Rule(rows=8, keys=8, offset=0)
    ours = from_runs(rule_runs(rule), 128, 128)
    bm = create_block_mask(mask_mod_of(rule), 1, 1, 8, 8, device="cpu")
    assert ours.sparsity() == pytest.approx(bm.sparsity()) == pytest.approx(-25500.0)
    assert ours.picture() == str(bm)


def test_runs_cells_equal_the_rule_table():
    for name, case in CASES.items():
        rule = Rule(**case)
        runs = rule_runs(rule)
        assert np.array_equal(runs.band(0, rule.rows, 0, rule.keys), rule.table_rows(slice(None))), name
        assert runs.visible() == int(rule.table_rows(slice(None)).sum()), name


def dense_kind(allowed: np.ndarray, qb: int, kb: int) -> np.ndarray:
    """create_block_mask's own algorithm on a dense table: pad with hidden
    cells to whole blocks, count per block, full iff every cell visible."""
    rows, keys = allowed.shape
    n_q, n_k = -(-rows // qb), -(-keys // kb)
    padded = np.zeros((n_q * qb, n_k * kb), dtype=np.int64)
    padded[:rows, :keys] = allowed
    sums = padded.reshape(n_q, qb, n_k, kb).sum(axis=(1, 3))
    return np.where(sums == 0, EMPTY, np.where(sums == qb * kb, FULL, PARTIAL))


def random_rule(rng: np.random.Generator) -> Rule:
    rows = int(rng.integers(1, 300))
    past = int(rng.integers(0, 200))
    keys = rows + past
    parts = dict(rows=rows, keys=keys, offset=past, causal=bool(rng.random() < 0.8))
    if rng.random() < 0.4:
        parts["window"] = int(rng.integers(1, 120))
    if rng.random() < 0.3:
        parts["chunk"] = int(rng.integers(1, 90))
    if rng.random() < 0.3:
        parts["prefix"] = int(rng.integers(0, keys + 1))
    if rng.random() < 0.3:
        cuts = np.sort(rng.choice(np.arange(1, keys), size=min(keys - 1, int(rng.integers(1, 5))), replace=False))
        parts["documents"] = tuple(int(n) for n in np.diff(np.concatenate(([0], cuts, [keys]))))
    if rng.random() < 0.3:
        parts["pad"] = int(rng.integers(0, keys + 1))
        parts["pad_side"] = "left" if rng.random() < 0.5 else "right"
    return Rule(**parts)


@pytest.mark.parametrize("seed", range(80))
def test_random_rules_equal_the_dense_algorithm(seed):
    rng = np.random.default_rng(seed)
    rule = random_rule(rng)
    qb, kb = (int(x) for x in rng.choice([1, 3, 8, 16, 32, 64, 128], size=2))
    runs = rule_runs(rule)
    allowed = rule.table_rows(slice(None))
    assert np.array_equal(runs.band(0, rule.rows, 0, rule.keys), allowed), rule
    assert np.array_equal(from_runs(runs, qb, kb).kind, dense_kind(allowed, qb, kb)), (rule, qb, kb)
