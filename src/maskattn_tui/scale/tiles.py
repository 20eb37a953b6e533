"""One pass over a mask_mod's table, tile by tile (memory: one tile, never
Q x K): visible cells per (Q-block, KV-block) - hence the block map
create_block_mask builds - and per query row its first and last visible key
and its count (doctor.rows.RowStats), from which the doctor reads the rule.

A tile is whole blocks: TILE_CELLS cells at most (about 2M: the user's
int64 index arithmetic on it is ~16 MB an operation)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.rows import RowStats
from maskattn_tui.scale.blocks import BlockMap, cdiv, from_sums

TILE_CELLS = 1 << 21


@dataclass(frozen=True)
class Scan:
    blocks: BlockMap
    stats: RowStats
    #: visible cells of the whole table
    visible: int
    #: visible cells per block (int64, the block map's shape)
    sums: np.ndarray


def tile_shape(q_block: int, kv_block: int, keys: int) -> tuple[int, int]:
    """(rows, keys) of a tile: whole blocks, at least 128 rows' worth."""
    rows = q_block * cdiv(128, q_block)
    per_row = max(kv_block, (TILE_CELLS // rows) // kv_block * kv_block)
    return rows, min(per_row, kv_block * cdiv(keys, kv_block))


def _padded(cells: np.ndarray, rows: int, cols: int) -> np.ndarray:
    if cells.shape == (rows, cols):
        return cells
    out = np.zeros((rows, cols), dtype=bool)
    out[: cells.shape[0], : cells.shape[1]] = cells
    return out


def cores() -> int:
    """The cores this process may run on (tiles are spread over them)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def each_band(q_len: int, rows: int, work: Callable[[int, int], Iterator[None]], workers: int = 1,
              progress: Callable[[int], None] | None = None) -> None:
    """work(q0, q1) for every band of `rows` query rows; each yields once a
    tile. The bands are independent (each writes only its own rows), so they
    run on `workers` threads: numpy and torch let go of the GIL inside an
    operation, which is where a tile's time goes. `progress(tiles done)` is
    called on this thread. The threads are daemons, so a mask_mod that hangs
    does not keep the process alive after Ctrl-C; the first error (the
    user's function failing, one line) is raised here."""
    bands = [(q0, min(q_len, q0 + rows)) for q0 in range(0, q_len, rows)]
    if workers <= 1 or len(bands) < 2:
        done = 0
        for q0, q1 in bands:
            for _ in work(q0, q1):
                done += 1
                if progress is not None:
                    progress(done)
        return
    import queue
    import threading

    todo = iter(bands)
    take, stop, told = threading.Lock(), threading.Event(), queue.SimpleQueue()

    def worker() -> None:
        try:
            while not stop.is_set():
                with take:
                    band = next(todo, None)
                if band is None:
                    break
                for _ in work(*band):
                    told.put(1)
                    if stop.is_set():
                        return
        except BaseException as e:  # noqa: BLE001 - raised on the main thread below
            told.put(e)
        finally:
            told.put(None)

    threads = [threading.Thread(target=worker, daemon=True, name=f"maskattn-tiles-{i}")
               for i in range(min(workers, len(bands)))]
    for thread in threads:
        thread.start()
    done, running = 0, len(threads)
    try:
        while running:
            try:
                item = told.get(timeout=0.5)
            except queue.Empty:  # no tile done for a while (a slow or hung mask_mod): the seconds still go on
                if progress is not None:
                    progress(done)
                continue
            if item is None:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                done += 1
                if progress is not None:
                    progress(done)
    finally:
        stop.set()


def tile_count(q_len: int, kv_len: int, shape: tuple[int, int]) -> int:
    return cdiv(q_len, shape[0]) * cdiv(kv_len, shape[1])


def scan(tile: Callable[[int, int, int, int], np.ndarray], q_len: int, kv_len: int, q_block: int,
         kv_block: int, progress: Callable[[int, int], None] | None = None, workers: int = 1) -> Scan:
    """Block sums and row statistics of the table `tile(q0, q1, k0, k1)`
    gives, on `workers` threads; `progress(done, total)` is told the tiles
    done after each one."""
    n_q, n_k = cdiv(q_len, q_block), cdiv(kv_len, kv_block)
    sums = np.zeros((n_q, n_k), dtype=np.int64)
    lo = np.full(q_len, -1, dtype=np.int64)
    hi = np.full(q_len, -1, dtype=np.int64)
    count = np.zeros(q_len, dtype=np.int64)
    shape = tile_shape(q_block, kv_block, kv_len)
    acc = np.uint16 if kv_block < 1 << 16 else np.int64

    def band(q0: int, q1: int) -> Iterator[None]:
        # Only rows q0:q1 of lo / hi / count and their block row of sums are written: bands never share one.
        for k0 in range(0, kv_len, shape[1]):
            k1 = min(kv_len, k0 + shape[1])
            cells = np.ascontiguousarray(tile(q0, q1, k0, k1), dtype=bool)
            _add(cells, q0, q1, k0, k1, q_block, kv_block, acc, sums, lo, hi, count)
            yield

    total = tile_count(q_len, kv_len, shape)
    each_band(q_len, shape[0], band, workers, None if progress is None else lambda done: progress(done, total))
    empty = count == 0
    lo[empty], hi[empty] = 0, -1
    blocks = from_sums(sums, q_len, kv_len, q_block, kv_block)
    return Scan(blocks, RowStats(lo, hi, count, kv_len), int(count.sum()), sums)


def _add(cells: np.ndarray, q0: int, q1: int, k0: int, k1: int, q_block: int, kv_block: int, acc, sums: np.ndarray,
         lo: np.ndarray, hi: np.ndarray, count: np.ndarray) -> None:
    """One tile's cells into the block sums and the rows' first / last visible key and count."""
    rows = q1 - q0
    nkb = cdiv(k1 - k0, kv_block)
    padded = _padded(cells, cdiv(rows, q_block) * q_block, nkb * kv_block)
    per_rb = np.add.reduce(padded.view(np.uint8).reshape(padded.shape[0], nkb, kv_block), axis=2, dtype=acc)
    b0, kb0 = q0 // q_block, k0 // kv_block
    sums[b0: b0 + padded.shape[0] // q_block, kb0: kb0 + nkb] += \
        per_rb.reshape(-1, q_block, nkb).sum(axis=1, dtype=np.int64)
    per_rb = per_rb[:rows]
    seen = per_rb > 0
    any_row = seen.any(axis=1)
    if not any_row.any():
        return
    count[q0:q1] += per_rb.sum(axis=1, dtype=np.int64)
    rix = np.flatnonzero(any_row)
    span = np.arange(kv_block)
    first_b = np.argmax(seen[rix], axis=1)
    first = first_b * kv_block + np.argmax(padded[rix[:, None], first_b[:, None] * kv_block + span], axis=1)
    last_b = nkb - 1 - np.argmax(seen[rix, ::-1], axis=1)
    last = last_b * kv_block + kv_block - 1 \
        - np.argmax(padded[rix[:, None], last_b[:, None] * kv_block + span[::-1]], axis=1)
    unset = lo[q0 + rix] < 0
    lo[q0 + rix[unset]] = k0 + first[unset]
    hi[q0 + rix] = k0 + last
