"""doctor FILE.py:NAME's tile scan on one thread against the machine's
cores (scale.tiles.scan, workers=1 against workers=cores()), interleaved,
in one process, on the mask_mods users write: a sliding window (plain
arithmetic: the numpy engine) and causal documents (a tensor of document
ids: the torch engine). Each run's block sums are compared with the
one-thread run's, so the threads are checked to give the same table.

    python benchmarks/scale_workers.py [--n 32768] [--runs 5]

Prints each rule's median wall time at 1 thread and at cores() threads and
the speed-up. Not a test: nothing asserts a time (the cores are shared)."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))

MODS = '''
import torch

WINDOW = 4096
doc_id = torch.repeat_interleave(torch.arange(3), torch.tensor({lengths}))


def window(b, h, q_idx, kv_idx):
    return (kv_idx <= q_idx) & (kv_idx > q_idx - WINDOW)


def documents(b, h, q_idx, kv_idx):
    return (doc_id[q_idx] == doc_id[kv_idx]) & (kv_idx <= q_idx)
'''


def main() -> int:
    import numpy as np

    from maskattn_tui.scale.mask_mod import evaluator, load, one_thread
    from maskattn_tui.scale.tiles import cores, scan

    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=32768)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    n, many = args.n, cores()
    lengths = [n * 40 // 131, n * 50 // 131]
    lengths.append(n - sum(lengths))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "mods.py")
        with open(path, "w") as file:
            file.write(MODS.format(lengths=lengths))
        print(f"{n}² cells, blocks of 128, {args.runs} interleaved runs each, cores() = {many}, "
              f"load average {os.getloadavg()[0]:.2f}")
        for rule in ("window", "documents"):
            ev = evaluator(load(f"{path}:{rule}"), rule, n, n)
            times: dict[int, list[float]] = {1: [], many: []}
            with one_thread(ev.engine):  # as doctor_run
                reference = scan(ev.tile, n, n, 128, 128, workers=1).sums
                for _ in range(args.runs):
                    for workers in times:
                        started = time.perf_counter()
                        got = scan(ev.tile, n, n, 128, 128, workers=workers)
                        times[workers].append(time.perf_counter() - started)
                        assert np.array_equal(got.sums, reference), (rule, workers)
            one, all_ = statistics.median(times[1]), statistics.median(times[many])
            print(f"  {rule:9} ({ev.engine:5}): 1 thread {one:6.2f} s, {many} threads {all_:6.2f} s, "
                  f"speed-up {one / all_:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
