"""A BlockMask used at other lengths or another block size (scale.reuse):
torch's refusals checked by calling flex_attention, the changed cells
checked against a second computation from torch's own BlockMask indices,
and (slow) against what compiled flex_attention on CPU really computes."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch.nn.attention.flex_attention import BlockMask, create_block_mask, create_mask, flex_attention  # noqa: E402

from maskattn_tui.scale.mask_mod import Evaluator  # noqa: E402
from maskattn_tui.scale.reuse import reuse  # noqa: E402
from maskattn_tui.scale.tiles import scan  # noqa: E402


def window(w):
    def mod(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx - kv_idx < w)
    return mod


def dense_blocks(nums, idx, n_k):
    n_q = nums.shape[-1]
    out = np.zeros((n_q, n_k), dtype=bool)
    for i in range(n_q):
        out[i, idx[0, 0, i, : int(nums[0, 0, i])].numpy()] = True
    return out


def reused_cells(mod, built, used) -> np.ndarray:
    """The table a block-following kernel computes: torch's BlockMask built
    at `built` = (Q0, K0, b0), its indices read as blocks of b at (Q, K)."""
    q0, k0, b0 = built
    q, k, b = used
    bm = create_block_mask(mod, 1, 1, q0, k0, device="cpu", BLOCK_SIZE=b0)
    n_k = bm.kv_indices.shape[-1]
    full = dense_blocks(bm.full_kv_num_blocks, bm.full_kv_indices, n_k)
    partial = dense_blocks(bm.kv_num_blocks, bm.kv_indices, n_k)
    rows, cols = np.arange(q)[:, None] // b, np.arange(k)[None, :] // b
    inside = (rows < full.shape[0]) & (cols < n_k)
    r, c = np.minimum(rows, full.shape[0] - 1), np.minimum(cols, n_k - 1)
    cells = create_mask(mod, 1, 1, q, k, device="cpu")[0, 0].numpy()
    return inside & (full[r, c] | (partial[r, c] & cells))


CASES = [
    (window(300), (512, 512, 64), (512, 512, 128)),
    (window(300), (512, 512, 128), (512, 512, 64)),
    (window(100), (1024, 1024, 64), (1024, 1024, 128)),
    (window(300), (2048, 2048, 128), (1000, 1000, 128)),
    (window(300), (2048, 2048, 64), (1000, 700, 128)),
]


@pytest.mark.parametrize("mod,built,used", CASES)
def test_changed_cells_equal_torchs_indices_read_so(mod, built, used):
    q, k, b = used
    ev = Evaluator(mod, "mod", engine="torch")
    got = reuse(ev.tile, scan(ev.tile, q, k, b, b), built)
    want = reused_cells(mod, built, used)
    cells = create_mask(mod, 1, 1, q, k, device="cpu")[0, 0].numpy()
    differ = np.argwhere(want != cells)
    assert got.cells_differ == len(differ)
    assert [(r, c) for r, c, _ in got.cells] == [tuple(map(int, x)) for x in differ[:20]]
    assert all(s == bool(want[r, c]) for r, c, s in got.cells)


def test_a_pure_mask_mod_survives_a_crop_and_the_block_kinds_say_where_it_was_cut():
    mod = window(300)
    ev = Evaluator(mod, "mod", engine="torch")
    got = reuse(ev.tile, scan(ev.tile, 1000, 1000, 128, 128), (1024, 1024, 128))
    assert (got.lengths, got.cells_differ) == ("shorter", 0)
    crop = create_block_mask(mod, 1, 1, 1024, 1024, device="cpu")._adjust(1000, 1000)
    fresh = create_block_mask(mod, 1, 1, 1000, 1000, device="cpu")
    torch_differ = int((crop.full_kv_num_blocks != fresh.full_kv_num_blocks).sum())
    assert got.blocks_differ > 0 and torch_differ > 0  # the cut blocks stay full in the crop


def test_torch_refuses_as_reported():
    mod = window(300)
    ev = Evaluator(mod, "mod", engine="torch")
    q = torch.zeros(1, 1, 1000, 8)
    for built, lengths, says in (((512, 512, 128), "longer", "smaller length"),
                                 ((2048, 2048, 128), "shorter", "larger length")):
        got = reuse(ev.tile, scan(ev.tile, 1000, 1000, 128, 128), built)
        assert got.lengths == lengths
        bm = create_block_mask(mod, 1, 1, built[0], built[1], device="cpu")
        with pytest.raises(ValueError, match=says):
            flex_attention(q, q, q, block_mask=bm)


@pytest.mark.slow
def test_compiled_flex_attention_on_cpu_shows_the_changed_cells():
    """What the report promises a block-following kernel does, run: the
    compiled CPU kernel's output equals attention under the reused table,
    not under the mask_mod's own (torch.compile needs a C++ compiler)."""
    mod, built, used = window(100), (256, 256, 32), (256, 256, 64)
    q_len, kv_len, b = used
    ev = Evaluator(mod, "mod", engine="torch")
    got = reuse(ev.tile, scan(ev.tile, q_len, kv_len, b, b), built)
    assert got.cells_differ > 0
    bm0 = create_block_mask(mod, 1, 1, built[0], built[1], device="cpu", BLOCK_SIZE=built[2])
    bm = BlockMask.from_kv_blocks(bm0.kv_num_blocks, bm0.kv_indices, bm0.full_kv_num_blocks, bm0.full_kv_indices,
                                  BLOCK_SIZE=b, mask_mod=mod, seq_lengths=(q_len, kv_len))
    gen = torch.Generator().manual_seed(0)
    qkv = [torch.randn(1, 1, n, 16, generator=gen) for n in (q_len, kv_len, kv_len)]
    # The kernel is what is checked, not the toolchain: the CPU's own flags
    # choose the vector ISA instead of a trial compile of each (9 of them),
    # and no header is precompiled for one kernel (cold cache: 51 s -> 21 s).
    import torch._inductor.config as inductor

    with inductor.patch({"cpp.vec_isa_ok": True, "cpp_cache_precompile_headers": False}):
        out = torch.compile(flex_attention)(*qkv, block_mask=bm)[0, 0]
    table = torch.from_numpy(reused_cells(mod, built, used))
    want = torch.nn.functional.scaled_dot_product_attention(*qkv, attn_mask=table)[0, 0]
    own = torch.nn.functional.scaled_dot_product_attention(*qkv, attn_mask=create_mask(mod, 1, 1, q_len, kv_len,
                                                                                        device="cpu"))[0, 0]
    assert torch.allclose(out, want, atol=1e-4)
    assert not torch.allclose(out, own, atol=1e-2)


def test_cli_reports_the_reuse(tmp_path, capsys):
    import json

    from maskattn_tui.cli import main

    path = tmp_path / "w.py"
    path.write_text("def win(b, h, q_idx, kv_idx):\n    return (q_idx >= kv_idx) & (q_idx - kv_idx < 300)\n")
    assert main(["doctor", f"{path}:win", "--q-len", "512", "--kv-len", "512", "--built-block", "64", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["reuse"]
    want = reused_cells(window(300), (512, 512, 64), (512, 512, 128))
    cells = create_mask(window(300), 1, 1, 512, 512, device="cpu")[0, 0].numpy()
    assert doc["cells_differ"] == int((want != cells).sum()) > 0
    assert main(["doctor", f"{path}:win", "--q-len", "512", "--kv-len", "512", "--built-for", "256,512"]) == 0
    assert "refuses it (created for a smaller length)" in capsys.readouterr().out
