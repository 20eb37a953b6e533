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
asserts a time. Stdlib + numpy; Linux/macOS."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

BASELINE = "import numpy as np, sys; np.count_nonzero(np.load(sys.argv[1], mmap_mode='r'))"


def make_mask(path: str, n: int) -> None:
    """A causal n x n bool mask written band by band (never n^2 in memory twice)."""
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.bool_, shape=(n, n))
    step = max(1, (1 << 24) // n)
    for r0 in range(0, n, step):
        r1 = min(n, r0 + step)
        rows = np.arange(r0, r1)[:, None]
        out[r0:r1] = np.arange(n)[None, :] <= rows
    out.flush()
    del out


def run(argv: list[str]) -> tuple[float, int, int]:
    """(seconds, peak RSS in KiB, exit code) of one child."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed ({proc.returncode}): {err.strip()}")
    rss = usage.ru_maxrss // (1024 if sys.platform == "darwin" else 1)
    return elapsed, rss, proc.returncode


def bench(path: str, runs: int) -> dict:
    doctor = [sys.executable, "-m", "maskattn_tui", "doctor", "--json", path]
    baseline = [sys.executable, "-c", BASELINE, path]
    times = {"doctor": [], "baseline": []}
    peak = {"doctor": 0, "baseline": 0}
    for i in range(runs + 1):
        for name, argv in (("doctor", doctor), ("baseline", baseline)):
            seconds, rss, _ = run(argv)
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
