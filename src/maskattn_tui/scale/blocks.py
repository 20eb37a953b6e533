"""FlexAttention's view of a mask: each (Q-block, KV-block) is EMPTY (no
visible cell), PARTIAL (some) or FULL (all), exactly as
`create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, BLOCK_SIZE=...)` decides:
the table is padded with hidden cells up to whole blocks, so a short last
block is never full (torch's _convert_mask_to_block_mask).

From runs (a rule): a block is touched when some row's run reaches into it
and full when every one of its Q_BLOCK rows covers it with one run; both are
difference arrays over the rows' runs, so no cell is evaluated and the cost
is O(Q + blocks). From tile sums (a mask_mod): visible cells per block."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.scale.intervals import Runs

EMPTY, PARTIAL, FULL = 0, 1, 2
#: Q-blocks per pass of from_runs (its difference arrays are this x KV-blocks).
_CHUNK_CELLS = 1 << 22


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class BlockMap:
    q_len: int
    kv_len: int
    q_block: int
    kv_block: int
    #: (ceil(Q/q_block), ceil(KV/kv_block)) uint8 of EMPTY / PARTIAL / FULL
    kind: np.ndarray

    @property
    def kv_num_blocks(self) -> np.ndarray:
        """Partial blocks per Q-block row (BlockMask.kv_num_blocks[b, h])."""
        return (self.kind == PARTIAL).sum(axis=1)

    @property
    def full_kv_num_blocks(self) -> np.ndarray:
        """Full blocks per Q-block row (BlockMask.full_kv_num_blocks[b, h])."""
        return (self.kind == FULL).sum(axis=1)

    def counts(self) -> dict[str, int]:
        partial = int(np.count_nonzero(self.kind == PARTIAL))
        full = int(np.count_nonzero(self.kind == FULL))
        return {"partial": partial, "full": full, "empty": int(self.kind.size) - partial - full,
                "total": int(self.kind.size)}

    def sparsity(self) -> float:
        """BlockMask.sparsity(): the percentage of the table not computed
        (negative when the table is smaller than one block)."""
        c = self.counts()
        computed = (c["partial"] + c["full"]) * self.q_block * self.kv_block
        return 100 * (1 - computed / (self.q_len * self.kv_len))

    def picture(self, b: int = 0, h: int = 0, grid: tuple[int, int] = (20, 20)) -> str:
        """str(block_mask) for this one (batch, head): torch's to_string."""
        body = block_picture(self.kind != EMPTY, grid)
        text = f"({b}, {h})\n" + body
        return (f"BlockMask(shape=(1, 1, {self.q_len}, {self.kv_len}), sparsity={self.sparsity():.2f}%, \n"
                + text.strip() + "\n)")


def block_picture(on: np.ndarray, grid: tuple[int, int] = (20, 20)) -> str:
    """torch's BlockMask.to_string grid of a block-level map: sections of
    ceil(n/20) blocks, '█' all on, ' ' none, '░' some; two characters each."""
    n_rows, n_cols = on.shape
    row_step, col_step = max(1, cdiv(n_rows, grid[0])), max(1, cdiv(n_cols, grid[1]))
    r_at, c_at = np.arange(0, n_rows, row_step), np.arange(0, n_cols, col_step)
    sums = np.add.reduceat(np.add.reduceat(on.astype(np.int64), r_at, axis=0), c_at, axis=1)
    sizes = np.minimum(row_step, n_rows - r_at)[:, None] * np.minimum(col_step, n_cols - c_at)[None, :]
    lines = []
    for srow, zrow in zip(sums, sizes):
        lines.append("".join(("█" if s == z else " " if s == 0 else "░") * 2 for s, z in zip(srow, zrow)))
    return "".join(line + "\n" for line in lines)


def from_sums(sums: np.ndarray, q_len: int, kv_len: int, q_block: int, kv_block: int) -> BlockMap:
    """From visible cells per block (the short last blocks counted as torch
    pads them: never full)."""
    area = q_block * kv_block
    kind = np.where(sums == 0, EMPTY, np.where(sums == area, FULL, PARTIAL)).astype(np.uint8)
    return BlockMap(q_len, kv_len, q_block, kv_block, kind)


def from_runs(runs: Runs, q_block: int, kv_block: int) -> BlockMap:
    """The block map of a rule's runs, analytically (module note)."""
    n_q, n_k = cdiv(runs.rows, q_block), cdiv(runs.keys, kv_block)
    kind = np.empty((n_q, n_k), dtype=np.uint8)
    qblk = runs.row // q_block
    width = n_k + 1
    chunk = max(1, _CHUNK_CELLS // width)
    for c0 in range(0, n_q, chunk):
        c1 = min(n_q, c0 + chunk)
        a, b = np.searchsorted(qblk, [c0, c1])
        r, lo, hi = qblk[a:b] - c0, runs.lo[a:b], runs.hi[a:b]
        size = (c1 - c0) * width
        # touched: the run meets blocks lo//kb .. hi//kb
        touch = np.bincount(r * width + lo // kv_block, minlength=size) \
            - np.bincount(r * width + hi // kv_block + 1, minlength=size)
        touched = np.cumsum(touch.reshape(c1 - c0, width), axis=1)[:, :n_k] > 0
        # covered: the run holds all of blocks ceil(lo/kb) .. (hi+1)//kb - 1
        f0, f1 = -(-lo // kv_block), (hi + 1) // kv_block
        ok = f0 < f1
        cover = np.bincount(r[ok] * width + f0[ok], minlength=size) \
            - np.bincount(r[ok] * width + f1[ok], minlength=size)
        full = np.cumsum(cover.reshape(c1 - c0, width), axis=1)[:, :n_k] == q_block
        kind[c0:c1] = np.where(full, FULL, np.where(touched, PARTIAL, EMPTY))
    return BlockMap(runs.rows, runs.keys, q_block, kv_block, kind)
