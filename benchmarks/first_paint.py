"""The first-paint pair alone, quicker to rerun than speed_pairs.py: the
app's first stable paint at 100x30 against the minimal app's (Header, a
12x12 grid in a Static, Footer), interleaved, medians and minima.

    python -m compileall -q src && python benchmarks/first_paint.py [--runs 15]

A benchmark, not a test: it asserts nothing."""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import HERE, stable_paint  # noqa: E402

APP = [sys.executable, "-m", "maskattn_tui", "--lang", "en"]
MINIMAL_GRID = [sys.executable, str(HERE / "minimal_app.py"), "--grid"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--quiet-ms", type=int, default=250)
    args = parser.parse_args(argv)
    app, minimal = [], []
    for _ in range(args.runs):  # interleaved: machine noise hits each alike
        app.append(stable_paint(APP, args.quiet_ms / 1000))
        minimal.append(stable_paint(MINIMAL_GRID, args.quiet_ms / 1000))
    med = statistics.median
    print(f"{args.runs} pairs: median {med(app):.3f} / {med(minimal):.3f} s = {med(app) / med(minimal):.2f}x; "
          f"min {min(app):.3f} / {min(minimal):.3f} s = {min(app) / min(minimal):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
