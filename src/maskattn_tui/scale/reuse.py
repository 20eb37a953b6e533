"""A BlockMask used where it was not built for.

Built: create_block_mask(mask_mod, 1, 1, Q0, K0, BLOCK_SIZE=b0). Used:
queries of length Q, keys of length K, blocks read as b.

* Longer than built (Q > Q0 or K > K0): flex_attention refuses ("created
  for a smaller length"): a new mask is needed.
* Shorter: flex_attention refuses too, unless block_mask._adjust(Q, K)
  crops it to the upper-left corner: blocks keep the kind they had at the
  built lengths.
* Another block size (b != b0): kv_indices computed for blocks of b0 and
  read as blocks of b - BlockMask.from_kv_blocks without BLOCK_SIZE reads
  them as 128 - so every index names another part of the table.

What the reused mask shows: a FULL block all of its cells (the kernel skips
the mask_mod there), a PARTIAL one the mask_mod's cells, an EMPTY one none.
Against the mask_mod at (Q, K) a cell changes exactly where a reused-FULL
block holds a hidden cell or a reused-EMPTY block a visible one, so the
count comes from the visible cells per block of one scan at block b, and
only the blocks listed are evaluated for the cells' names."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.scale.blocks import EMPTY, FULL, cdiv
from maskattn_tui.scale.tiles import Scan, scan

#: Differing cells named (the count says how many there are).
CELL_LIMIT = 20


@dataclass(frozen=True)
class Reuse:
    #: "same", "longer" (refused), "shorter" (refused unless _adjust)
    lengths: str
    built: tuple[int, int, int]
    used: tuple[int, int, int]
    #: blocks whose kind differs from a mask built at (Q, K, b); None when refused
    blocks_differ: int | None = None
    cells_differ: int | None = None
    #: (row, key, shown by the reused mask)
    cells: tuple[tuple[int, int, bool], ...] = ()


def _sizes(total: int, size: int, n: int) -> np.ndarray:
    return np.clip(total - np.arange(n) * size, 0, size)


def reuse(tile, fresh: Scan, built: tuple[int, int, int]) -> Reuse:
    """`fresh`: the scan of the mask_mod at the lengths and block size used."""
    q0, k0, b0 = built
    q_len, kv_len = fresh.blocks.q_len, fresh.blocks.kv_len
    b = fresh.blocks.q_block
    used = (q_len, kv_len, b)
    if q_len > q0 or kv_len > k0:
        return Reuse("longer", built, used)
    lengths = "same" if (q_len, kv_len) == (q0, k0) else "shorter"
    old = scan(tile, q0, k0, b0, b0).blocks.kind
    n_q, n_k = fresh.blocks.kind.shape
    read = np.full((n_q, n_k), EMPTY, dtype=np.uint8)
    rq, rk = min(n_q, old.shape[0]), min(n_k, old.shape[1])
    read[:rq, :rk] = old[:rq, :rk]
    area = _sizes(q_len, b, n_q)[:, None] * _sizes(kv_len, b, n_k)[None, :]
    diff = np.where(read == FULL, area - fresh.sums, np.where(read == EMPTY, fresh.sums, 0))
    fresh_kind = fresh.blocks.kind
    return Reuse(lengths, built, used, int(np.count_nonzero(read != fresh_kind)), int(diff.sum()),
                 _first_cells(tile, read, diff, q_len, kv_len, b))


def _first_cells(tile, read: np.ndarray, diff: np.ndarray, q_len: int, kv_len: int, b: int):
    """The first differing cells, row-major: from the first block rows with any."""
    out: list[tuple[int, int, bool]] = []
    for i in np.flatnonzero(diff.any(axis=1)):
        r0, r1 = i * b, min(q_len, (i + 1) * b)
        found = []
        for j in np.flatnonzero(diff[i]):
            c0, c1 = j * b, min(kv_len, (j + 1) * b)
            cells = np.asarray(tile(r0, r1, c0, c1))
            shown = read[i, j] == FULL
            rr, cc = np.nonzero(cells != shown)
            found += [(int(r0 + r), int(c0 + c), bool(shown)) for r, c in zip(rr, cc)]
        found.sort()
        out += found[: CELL_LIMIT - len(out)]
        if len(out) >= CELL_LIMIT:
            break
    return tuple(out)
