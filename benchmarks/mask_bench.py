"""Is mask mode as fast on a 16,384 x 16,384 mask as on a 5 x 5? Runs
`maskattn-tui --mask FILE` in a pseudo-terminal (benchmarks/run.py's
harness) on a 5x5 causal mask and on a 16,384x16,384 causal mask with one
leaked cell, the big one both as the auto block overview and as cells
(--block 1), interleaved, several runs each, and reports medians:

- startup: spawn to the first stable paint (reading and diagnosing the
  mask, and the big one's one pass of block counts, included)
- per key: a row move (down, then up, alternately) until the screen
  settles; the slowest
- bytes a row move writes
- peak memory (ru_maxrss of the child)

Bytecode is compiled first (compileall), so no run pays for it.

    python benchmarks/mask_bench.py [--runs 5] [--size 160x48] [--keys 8] [--json]

A benchmark, not a test: nothing here asserts a time."""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import measure_app  # noqa: E402  (the shared pty harness)

DOWN, UP = b"\x1b[B", b"\x1b[A"


def make_masks(folder: Path) -> dict[str, Path]:
    import numpy as np

    small = folder / "causal5.npy"
    np.save(small, np.tril(np.ones((5, 5), dtype=bool)))
    big = folder / "causal16384.npy"
    n = 16384
    mask = np.lib.format.open_memmap(big, mode="w+", dtype=bool, shape=(n, n))
    for r0 in range(0, n, 1024):  # built in bands: never two copies in memory
        rows = np.arange(r0, r0 + 1024)[:, None]
        mask[r0:r0 + 1024] = np.arange(n)[None, :] <= rows
    mask[5000, 9000] = True  # one leaked cell
    mask.flush()
    del mask
    return {"small": small, "big": big}


def measure(argv: list[str], cols: int, rows: int, quiet: float, keys: int) -> dict:
    # down, then up, alternately: every key moves, even on 5 rows
    return measure_app(argv, cols, rows, quiet, keys, key=lambda k: UP if k % 2 else DOWN, first_byte=60)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", default="160x48")
    parser.add_argument("--keys", type=int, default=8, help="row moves per run")
    parser.add_argument("--quiet-ms", type=int, default=250)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cols, rows = (int(n) for n in args.size.split("x"))
    quiet = args.quiet_ms / 1000
    compileall.compile_dir(str(HERE.parent / "src" / "maskattn_tui"), quiet=1)
    app = [sys.executable, "-m", "maskattn_tui", "--lang", "en", "--mask"]
    with tempfile.TemporaryDirectory() as folder:
        masks = make_masks(Path(folder))
        cases = {"5x5": [*app, str(masks["small"])],
                 "16384^2 blocks (auto)": [*app, str(masks["big"])],
                 "16384^2 cells (--block 1)": [*app, str(masks["big"]), "--block", "1"]}
        results: dict[str, list[dict]] = {name: [] for name in cases}
        for run in range(args.runs):  # interleaved: machine noise hits every case alike
            for name, case_argv in cases.items():
                results[name].append(measure(case_argv, cols, rows, quiet, args.keys))
            print(f"run {run + 1}/{args.runs} done", file=sys.stderr)
    fields = ("startup_s", "key_s", "key_max_s", "step_bytes", "maxrss_mib")
    summary = {name: {f: statistics.median(r[f] for r in rs) for f in fields} for name, rs in results.items()}
    exits = sorted({r["exit"] for rs in results.values() for r in rs})
    if args.json:
        print(json.dumps({"size": args.size, "runs": args.runs, "keys": args.keys, "cases": summary,
                          "exit_codes": exits}, indent=2))
        return 0
    print(f"{args.runs} interleaved runs, {args.size}, {args.keys} row moves each, settled = {args.quiet_ms} ms "
          f"quiet; medians ({os.cpu_count()} cores, Python {sys.version.split()[0]}); exit codes {exits}")
    print("| case | startup (s) | row move (ms) | slowest move (ms) | bytes per move | peak RSS (MiB) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, s in summary.items():
        print(f"| {name} | {s['startup_s']:.2f} | {s['key_s'] * 1000:.1f} | {s['key_max_s'] * 1000:.1f} | "
              f"{s['step_bytes']:,.0f} | {s['maxrss_mib']:.0f} |")
    base = summary["5x5"]["key_s"]
    for name in list(summary)[1:]:
        print(f"row move, {name} / 5x5: {summary[name]['key_s'] / base:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
