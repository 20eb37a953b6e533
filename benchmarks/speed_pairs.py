"""The app's speed pairs, measured as a user's install runs (compile the
bytecode first: `python -m compileall -q src`), each pair interleaved in
one run, medians. Uses benchmarks/run.py's pty harness.

- explore mode at 160x48: a row move (Down) at --past 32 --new 32 against
  the same at --past 3 --new 2; and the first stable paint of each;
- figure mode at 100x30: the slowest step key (Right, steps 1 -> 5)
  against the median key;
- the first stable paint against a minimal Textual app (Header, a 12x12
  grid in a Static, Footer: benchmarks/minimal_app.py --grid).

    python benchmarks/speed_pairs.py [--runs 7] [--quiet-ms 250] [--json]

A benchmark, not a test: it asserts nothing."""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import HERE, RIGHT, read_until_quiet, spawn  # noqa: E402

DOWN, UP = b"\x1b[B", b"\x1b[A"
APP = [sys.executable, "-m", "maskattn_tui", "--lang", "en"]
SMALL = [*APP, "--past", "3", "--new", "2"]
LARGE = [*APP, "--past", "32", "--new", "32"]
MINIMAL_GRID = [sys.executable, str(HERE / "minimal_app.py"), "--grid"]


def session(argv: list[str], size: tuple[int, int], quiet: float, key: bytes | tuple[bytes, ...], keys: int) -> dict:
    """Start `argv` in a pty; the first stable paint, then `keys` presses of
    `key` (or of the keys given in turn), each timed until the screen is
    quiet again."""
    cycle = key if isinstance(key, tuple) else (key,)
    start = time.perf_counter()
    pid, fd = spawn(argv, *size)
    select.select([fd], [], [], 20)  # the first byte may come later than `quiet` (Python and Textual start)
    _, last = read_until_quiet(fd, quiet)
    paint = (last or start) - start
    times = []
    for i in range(keys):
        sent = time.perf_counter()
        os.write(fd, cycle[i % len(cycle)])
        _, last = read_until_quiet(fd, quiet)
        times.append((last - sent) if last else float("nan"))
    os.write(fd, b"q")
    read_until_quiet(fd, quiet, limit=10)
    os.wait4(pid, 0)
    os.close(fd)
    return {"paint": paint, "keys": times}


def pair_options(description: str, argv: list[str] | None) -> argparse.Namespace:
    """--runs, --quiet-ms, --json: the options of an interleaved pair run."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quiet-ms", type=int, default=250)
    parser.add_argument("--json", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = pair_options(__doc__.splitlines()[0], argv)
    quiet = args.quiet_ms / 1000
    out: dict[str, list] = {k: [] for k in ("small", "large", "figure", "minimal")}
    for run in range(args.runs):  # interleaved: machine noise hits each alike
        # Down and Up in turn: every press moves the row (3+2 has two rows).
        out["small"].append(session(SMALL, (160, 48), quiet, (DOWN, UP), 6))
        out["large"].append(session(LARGE, (160, 48), quiet, (DOWN, UP), 6))
        out["figure"].append(session(APP, (100, 30), quiet, RIGHT, 4))
        out["minimal"].append(session(MINIMAL_GRID, (100, 30), quiet, RIGHT, 1))
        print(f"run {run + 1}/{args.runs} done", file=sys.stderr)

    med = statistics.median
    small_key = med(t for r in out["small"] for t in r["keys"])
    large_key = med(t for r in out["large"] for t in r["keys"])
    per_step = [med(r["keys"][k] for r in out["figure"]) for k in range(4)]
    summary = {
        "row_move_3+2_s": small_key, "row_move_32+32_s": large_key, "row_move_ratio": large_key / small_key,
        "paint_3+2_s": med(r["paint"] for r in out["small"]), "paint_32+32_s": med(r["paint"] for r in out["large"]),
        "step_keys_s": per_step, "step_slowest_over_median": max(per_step) / med(per_step),
        "paint_figure_s": med(r["paint"] for r in out["figure"]),
        "paint_minimal_grid_s": med(r["paint"] for r in out["minimal"]),
    }
    summary["paint_ratio_32_over_3"] = summary["paint_32+32_s"] / summary["paint_3+2_s"]
    summary["paint_ratio_to_minimal"] = summary["paint_figure_s"] / summary["paint_minimal_grid_s"]
    if args.json:
        print(json.dumps({"runs": args.runs, "quiet_ms": args.quiet_ms, **summary}, indent=2))
        return 0
    print(f"{args.runs} interleaved runs, settled = {args.quiet_ms} ms quiet, medians "
          f"({os.cpu_count()} cores, Python {sys.version.split()[0]})")
    print("| measure | value | target |")
    print("|---|---:|---:|")
    print(f"| explore 160x48, row move at 3+2 (ms) | {small_key * 1000:.1f} | |")
    print(f"| explore 160x48, row move at 32+32 (ms) | {large_key * 1000:.1f} | |")
    print(f"| ratio 32+32 / 3+2 | {summary['row_move_ratio']:.2f}x | <= 1.2x (row_move_pair.py fails above) |")
    print(f"| first paint 32+32 / 3+2 | {summary['paint_ratio_32_over_3']:.2f}x "
          f"({summary['paint_32+32_s']:.3f} / {summary['paint_3+2_s']:.3f} s) | <= 1.3x |")
    print(f"| figure 100x30, step keys 1->2 .. 4->5 (ms) | {' / '.join(f'{t * 1000:.1f}' for t in per_step)} | |")
    print(f"| slowest step key / median key | {summary['step_slowest_over_median']:.2f}x | <= 2x |")
    print(f"| first stable paint / minimal app (Header, 12x12 grid, Footer) | "
          f"{summary['paint_ratio_to_minimal']:.2f}x ({summary['paint_figure_s']:.3f} / "
          f"{summary['paint_minimal_grid_s']:.3f} s) | <= 1.10x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
