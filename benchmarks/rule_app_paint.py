"""The app at scale: the first stable paint at 100x30 of
`maskattn-tui --new 131072 --window 4096` (mask mode over the rule's runs,
maskmode.rule_doc) against a small configuration the explorer draws cell by
cell (`--new 16 --window 4`), interleaved, medians and minima.

    python -m compileall -q src && python benchmarks/rule_app_paint.py [--runs 7]

A benchmark, not a test: it asserts nothing."""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import stable_paint  # noqa: E402

BASE = [sys.executable, "-m", "maskattn_tui", "--lang", "en", "--past", "0"]
CASES = {
    "small --new 16 --window 4": BASE + ["--new", "16", "--window", "4"],
    "big --new 131072 --window 4096": BASE + ["--new", "131072", "--window", "4096"],
    "big --new 131072 --documents 40000,50000,41072": BASE + ["--new", "131072", "--documents", "40000,50000,41072"],
    "big --new 1048576 --chunk 65536": BASE + ["--new", "1048576", "--chunk", "65536"],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quiet-ms", type=int, default=250)
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.runs):  # interleaved: machine noise hits each alike
        for name, command in CASES.items():
            times[name].append(stable_paint(command, args.quiet_ms / 1000, stop="term"))
    for name, got in times.items():
        print(f"{name}: median {statistics.median(got):.3f} s, min {min(got):.3f} s ({args.runs} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
