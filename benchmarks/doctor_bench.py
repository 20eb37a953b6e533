"""How fast is `maskattn-tui doctor` on big masks? Makes causal bool .npy
masks (8192^2 and 16384^2 by default) in a temporary folder, then runs,
interleaved, N times each:

- doctor:   python -m maskattn_tui doctor --json FILE
- baseline: python -c "import numpy as np, sys; np.count_nonzero(np.load(sys.argv[1], mmap_mode='r'))" FILE

(one read of the memory-mapped mask: the floor of anything that looks at
every cell), and prints the medians, their ratio and the peak memory of the
children (ru_maxrss via os.wait4). The first run of each is a warm-up (it
pages the file in) and is not counted.

    python benchmarks/doctor_bench.py [--runs 5] [--sizes 8192,16384] [--json]

Run `python -m compileall -q src` first when PYTHONDONTWRITEBYTECODE is set,
or every run pays for compiling. A benchmark, not a test: nothing here
asserts a time. Stdlib here, numpy in the children; Linux/macOS."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BASELINE = "import numpy as np, sys; np.count_nonzero(np.load(sys.argv[1], mmap_mode='r'))"


#: Writes a causal n x n bool .npy band by band (never n^2 in memory twice).
MAKE = """
import sys
import numpy as np
path, n = sys.argv[1], int(sys.argv[2])
out = np.lib.format.open_memmap(path, mode="w+", dtype=np.bool_, shape=(n, n))
step = max(1, (1 << 24) // n)
for r0 in range(0, n, step):
    r1 = min(n, r0 + step)
    out[r0:r1] = np.arange(n)[None, :] <= np.arange(r0, r1)[:, None]
out.flush()
"""


def make_mask(path: str, n: int) -> None:
    """In a child process: Linux counts a parent's peak RSS in the ru_maxrss
    of the children it starts later, so this process never maps the mask
    (nor imports numpy)."""
    subprocess.run([sys.executable, "-c", MAKE, path, str(n)], check=True)


def run(argv: list[str]) -> tuple[float, int]:
    """(seconds, peak RSS in KiB) of one child, started with posix_spawn."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    start = time.perf_counter()
    try:
        pid = os.posix_spawn(argv[0], argv, os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status, usage = os.wait4(pid, 0)
    finally:
        os.close(devnull)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(argv)} failed with exit code {code}")
    rss = usage.ru_maxrss // (1024 if sys.platform == "darwin" else 1)
    return elapsed, rss


def bench(path: str, runs: int) -> dict:
    doctor = [sys.executable, "-m", "maskattn_tui", "doctor", "--json", path]
    baseline = [sys.executable, "-c", BASELINE, path]
    times = {"doctor": [], "baseline": []}
    peak = {"doctor": 0, "baseline": 0}
    for i in range(runs + 1):
        for name, argv in (("doctor", doctor), ("baseline", baseline)):
            seconds, rss = run(argv)
            if i:  # the first round is a warm-up
                times[name].append(seconds)
                peak[name] = max(peak[name], rss)
    med = {name: statistics.median(values) for name, values in times.items()}
    return {"doctor_s": med["doctor"], "baseline_s": med["baseline"], "ratio": med["doctor"] / med["baseline"],
            "doctor_peak_mib": peak["doctor"] / 1024, "baseline_peak_mib": peak["baseline"] / 1024,
            "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="8192,16384")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for n in (int(s) for s in args.sizes.split(",")):
            path = os.path.join(folder, f"causal_{n}.npy")
            make_mask(path, n)
            results[f"{n}x{n}"] = bench(path, args.runs)
            os.remove(path)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'mask':>12} {'doctor s':>9} {'baseline s':>11} {'ratio':>6} {'doctor MiB':>11} {'baseline MiB':>13}")
    for name, r in results.items():
        print(f"{name:>12} {r['doctor_s']:9.3f} {r['baseline_s']:11.3f} {r['ratio']:6.2f} "
              f"{r['doctor_peak_mib']:11.0f} {r['baseline_peak_mib']:13.0f}")
    print(f"(medians of {args.runs} interleaved runs after a warm-up; peak = ru_maxrss of the children)")


if __name__ == "__main__":
    main()
