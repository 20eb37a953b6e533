"""The row-move pair alone, with its target: explore mode at 160x48, a row
move (Down / Up in turn) at --past 32 --new 32 against the same at --past 3
--new 2, interleaved in one run (speed_pairs.py's pty sessions), medians.
Exits 1 when the ratio is above TARGET, so a change that makes a row move
cost more with the table's size fails here.

    python -m compileall -q src
    python benchmarks/row_move_pair.py [--runs 7] [--quiet-ms 250] [--json]

The cause it guards against (issue 35): each row move rebuilds the grid's
figure (three layouts tried), and the legend scanned every cell of the
table for its rules each time - 32 x 64 cells, 24,000 Cell.reasons calls a
move. The tables keep their distinct cell values now
(engine.visibility.VisibilityTable.values)."""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed_pairs import DOWN, LARGE, SMALL, UP, pair_options, session  # noqa: E402

#: A row move at 32 + 32 may cost at most this times one at 3 + 2.
TARGET = 1.2


def main(argv: list[str] | None = None) -> int:
    args = pair_options(__doc__.splitlines()[0], argv)
    quiet = args.quiet_ms / 1000
    small: list[float] = []
    large: list[float] = []
    for run in range(args.runs):  # interleaved: machine noise hits each alike
        small += session(SMALL, (160, 48), quiet, (DOWN, UP), 6)["keys"]
        large += session(LARGE, (160, 48), quiet, (DOWN, UP), 6)["keys"]
        print(f"run {run + 1}/{args.runs} done", file=sys.stderr)
    s, b = statistics.median(small), statistics.median(large)
    ratio = b / s
    ok = ratio <= TARGET
    if args.json:
        print(json.dumps({"runs": args.runs, "quiet_ms": args.quiet_ms, "row_move_3+2_s": s,
                          "row_move_32+32_s": b, "ratio": ratio, "target": TARGET, "ok": ok}, indent=2))
    else:
        print(f"{args.runs} interleaved runs, medians ({os.cpu_count()} cores, Python {sys.version.split()[0]})")
        print("| measure | value | target |")
        print("|---|---:|---:|")
        print(f"| explore 160x48, row move at 3+2 (ms) | {s * 1000:.1f} | |")
        print(f"| explore 160x48, row move at 32+32 (ms) | {b * 1000:.1f} | |")
        print(f"| ratio 32+32 / 3+2 | {ratio:.2f}x | <= {TARGET}x |")
        if not ok:
            print(f"FAILED: the row move at 32+32 costs {ratio:.2f}x the one at 3+2 (target <= {TARGET}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
