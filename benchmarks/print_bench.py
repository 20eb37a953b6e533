"""`maskattn-tui print` against `python -c "import rich.console"` (the floor
any program printing with Rich pays), interleaved, medians and minima; with
--old-src, also another checkout's print (e.g. the Rich-table drawing, to
see what the one drawing changed).

    python -m compileall -q src && python benchmarks/print_bench.py [--runs 21] [--old-src DIR/src]

Also says whether print imports rich.table (it should not). A benchmark,
not a test: it asserts nothing."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import clean_env  # noqa: E402

SRC = Path(__file__).resolve().parent.parent / "src"
FLOOR = [sys.executable, "-c", "import rich.console"]
PRINT = [sys.executable, "-m", "maskattn_tui", "print", "--all", "--lang", "en", "--width", "100"]


def env_for(src: Path) -> dict[str, str]:
    env = clean_env()
    env["PYTHONPATH"] = str(src)
    return env


def wall(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def imports_rich_table(src: Path) -> bool:
    done = subprocess.run([sys.executable, "-X", "importtime", *PRINT[1:]], capture_output=True, text=True,
                          env=env_for(src), check=True)
    return any(line.rstrip().endswith(" rich.table") for line in done.stderr.splitlines())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--old-src", type=Path, help="another checkout's src/ to time alongside")
    args = parser.parse_args(argv)
    runs: dict[str, list[float]] = {"import rich.console": [], "print --all": []}
    cases = [("import rich.console", FLOOR, SRC), ("print --all", PRINT, SRC)]
    if args.old_src:
        runs["print --all (old src)"] = []
        cases.append(("print --all (old src)", PRINT, args.old_src))
    for _ in range(args.runs):  # interleaved: machine noise hits each alike
        for name, command, src in cases:
            runs[name].append(wall(command, env_for(src)))
    floor = statistics.median(runs["import rich.console"])
    print(f"{args.runs} interleaved runs (median, min; ratio of medians to import rich.console)")
    for name, times in runs.items():
        print(f"| {name} | {statistics.median(times):.3f} s | {min(times):.3f} s | "
              f"{statistics.median(times) / floor:.2f}x |")
    print(f"print imports rich.table: {imports_rich_table(SRC)}"
          + (f" (old src: {imports_rich_table(args.old_src)})" if args.old_src else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
