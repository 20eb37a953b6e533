"""Is maskattn-tui light on the wire? Runs it and two minimal Textual apps
(benchmarks/minimal_app.py: a Static + Footer, the Static showing
`step k / 5`, or with --body a screenful of text that each step replaces)
in a pseudo-terminal of a fixed size, interleaved, several runs each, and
reports medians:

- startup: time from spawn to the first stable paint (no output for QUIET ms)
- per key: time from writing a key (right arrow) until the screen settles
  (the median of the keys of a run, and the slowest key)
- bytes per step: what one right arrow makes the app write (median, largest)
- full paint: the bytes of the first stable paint
- peak memory: ru_maxrss of the child (stdlib `resource` via os.wait4)
- and the wall time of `maskattn-tui print --all` against `python -c "import rich"`.

    python benchmarks/run.py [--runs 7] [--size 100x30] [--quiet-ms 250] [--json]

Benchmarks, not tests: nothing here asserts a time. Uses only the stdlib
(pty, select, resource); Linux/macOS."""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RIGHT = b"\x1b[C"
APPS = {
    "minimal": [sys.executable, str(HERE / "minimal_app.py")],
    # The one-line Static repaints ten cells a step; this one repaints a
    # screenful, like an app whose step changes its whole view.
    "minimal-body": [sys.executable, str(HERE / "minimal_app.py"), "--body"],
    "maskattn-tui": [sys.executable, "-m", "maskattn_tui", "--lang", "en"],
}


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TEXTUAL", "COLUMNS", "LINES", "NO_COLOR", "COLORTERM", "TMUX"))}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    return env


def spawn(argv: list[str], cols: int, rows: int) -> tuple[int, int]:
    pid, fd = pty.fork()
    if pid == 0:  # child: size the terminal before the app reads it
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.execvpe(argv[0], argv, clean_env())
        finally:
            os._exit(127)
    return pid, fd


def read_until_quiet(fd: int, quiet: float, limit: float = 20.0) -> tuple[bytes, float | None]:
    """Read until nothing arrives for `quiet` seconds; the bytes and the
    time of the last byte (None if none came)."""
    chunks, last, start = [], None, time.perf_counter()
    while time.perf_counter() - start < limit:
        ready, _, _ = select.select([fd], [], [], quiet)
        if not ready:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
        last = time.perf_counter()
    return b"".join(chunks), last


def stable_paint(argv: list[str], quiet: float, first_byte: float = 20.0, stop: str = "q") -> float:
    """Seconds from spawn at 100x30 to the last byte before `quiet` seconds of
    silence; the first byte may take up to `first_byte` seconds (Python and
    Textual start, a long rule is read first). The app is then ended by `q`, or with stop="term" by SIGTERM
    (in explore mode `q` is typed into the focused field, not a quit)."""
    start = time.perf_counter()
    pid, fd = spawn(argv, 100, 30)
    select.select([fd], [], [], first_byte)
    _, last = read_until_quiet(fd, quiet)
    if stop == "term":
        os.kill(pid, signal.SIGTERM)
    else:
        os.write(fd, b"q")
    read_until_quiet(fd, quiet, limit=10)
    os.wait4(pid, 0)
    os.close(fd)
    return (last or start) - start


def measure_app(argv: list[str], cols: int, rows: int, quiet: float, keys: int, key=lambda k: RIGHT,
                first_byte: float = 20.0) -> dict:
    """`keys` keys (`key(k)` is the k-th's bytes); `first_byte`: how long the
    app may take before it writes anything (Python and Textual start; more
    for one that reads a big file first). The quiet wait starts after it."""
    start = time.perf_counter()
    pid, fd = spawn(argv, cols, rows)
    select.select([fd], [], [], first_byte)
    paint, last = read_until_quiet(fd, quiet, limit=20.0 + first_byte)
    startup = (last or start) - start
    key_times, key_bytes = [], []
    for k in range(keys):
        sent = time.perf_counter()
        os.write(fd, key(k))
        data, last = read_until_quiet(fd, quiet)
        key_times.append((last - sent) if last else float("nan"))
        key_bytes.append(len(data))
    os.write(fd, b"q")
    read_until_quiet(fd, quiet, limit=10)
    _, status, usage = os.wait4(pid, 0)
    os.close(fd)
    return {
        "startup_s": startup,
        "full_paint_bytes": len(paint),
        "key_s": statistics.median(key_times),
        "key_max_s": max(key_times),
        "step_bytes": statistics.median(key_bytes),
        "step_max_bytes": max(key_bytes),
        "maxrss_mib": usage.ru_maxrss / 1024,  # KiB on Linux
        "per_key": list(zip(key_times, key_bytes)),
        "exit": os.waitstatus_to_exitcode(status),
    }


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=clean_env())
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--size", default="100x30")
    parser.add_argument("--quiet-ms", type=int, default=250, help="silence that means 'settled'")
    parser.add_argument("--keys", type=int, default=4, help="right arrows per run (steps 1 -> 5)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cols, rows = (int(n) for n in args.size.split("x"))
    quiet = args.quiet_ms / 1000
    results: dict[str, list[dict]] = {name: [] for name in APPS}
    prints, imports, floors = [], [], []
    for run in range(args.runs):  # interleaved: machine noise hits both alike
        for name, app_argv in APPS.items():
            results[name].append(measure_app(app_argv, cols, rows, quiet, args.keys))
        prints.append(wall([sys.executable, "-m", "maskattn_tui", "print", "--all", "--lang", "en"]))
        imports.append(wall([sys.executable, "-c", "import rich"]))
        # Context: what any program that prints a Rich table has to import.
        floors.append(wall([sys.executable, "-c", "import rich.console, rich.table"]))
        print(f"run {run + 1}/{args.runs} done", file=sys.stderr)

    def med(name: str, field: str) -> float:
        return statistics.median(r[field] for r in results[name])

    fields = ["startup_s", "key_s", "key_max_s", "step_bytes", "step_max_bytes", "full_paint_bytes", "maxrss_mib"]
    summary = {name: {f: med(name, f) for f in fields} for name in APPS}
    summary["print_all_s"] = statistics.median(prints)
    summary["import_rich_s"] = statistics.median(imports)
    summary["import_rich_table_s"] = statistics.median(floors)
    summary["exit_codes"] = sorted({r["exit"] for rs in results.values() for r in rs})
    if args.json:
        print(json.dumps({"size": args.size, "runs": args.runs, "quiet_ms": args.quiet_ms, **summary}, indent=2))
        return 0
    m, b, a = summary["minimal"], summary["minimal-body"], summary["maskattn-tui"]
    print(f"{args.runs} interleaved runs, {args.size}, TERM=xterm-256color, settled = {args.quiet_ms} ms quiet; "
          f"medians ({os.cpu_count()} cores, Python {sys.version.split()[0]})")
    print("| measure | minimal app | minimal app, --body | maskattn-tui | ratio to minimal | ratio to --body |")
    print("|---|---:|---:|---:|---:|---:|")
    rows_out = [
        ("first stable paint (s)", "startup_s", "{:.3f}"),
        ("per key, → until settled (s)", "key_s", "{:.3f}"),
        ("slowest key of a run (s)", "key_max_s", "{:.3f}"),
        ("bytes per step (→)", "step_bytes", "{:,.0f}"),
        ("largest step of a run (bytes)", "step_max_bytes", "{:,.0f}"),
        ("bytes of the full first paint", "full_paint_bytes", "{:,.0f}"),
        ("peak memory, ru_maxrss (MiB)", "maxrss_mib", "{:.1f}"),
    ]
    for label, field, fmt in rows_out:
        print(f"| {label} | {fmt.format(m[field])} | {fmt.format(b[field])} | {fmt.format(a[field])} | "
              f"{a[field] / m[field]:.2f}x | {a[field] / b[field]:.2f}x |")
    ratio = summary["print_all_s"] / summary["import_rich_s"]
    print(f"| `print --all` vs `python -c 'import rich'` (s) | {summary['import_rich_s']:.3f} | | "
          f"{summary['print_all_s']:.3f} | {ratio:.2f}x | |")
    floor = summary["import_rich_table_s"]
    print(f"| `print --all` vs `python -c 'import rich.console, rich.table'` (s) | {floor:.3f} | | "
          f"{summary['print_all_s']:.3f} | {summary['print_all_s'] / floor:.2f}x | |")
    print(f"bytes per step / full paint: {a['step_bytes'] / a['full_paint_bytes']:.1%}; "
          f"exit codes {summary['exit_codes']}")
    print()
    print("| maskattn-tui, key | settled after (ms), median | slowest (ms) | bytes, median |")
    print("|---|---:|---:|---:|")
    for k in range(args.keys):
        times = [r["per_key"][k][0] for r in results["maskattn-tui"]]
        sizes = [r["per_key"][k][1] for r in results["maskattn-tui"]]
        print(f"| → {k + 1} to {k + 2} | {statistics.median(times) * 1000:.1f} | {max(times) * 1000:.1f} | "
              f"{statistics.median(sizes):,.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
