"""Masks beyond memory, side by side with torch's own
create_block_mask, each measurement in a process of its own (peak RSS is
the process's ru_maxrss; times exclude imports):

  (a) analytic  the rule's block map from its row runs (scale.blocks.from_runs): numpy, no torch
  (b) doctor    doctor FILE.py:mask_mod's work: probes, the tile scan, the reading (scale.*)
  (c) torch     create_block_mask(mask_mod, 1, 1, N, N, device="cpu", BLOCK_SIZE=block), eager

Rules: causal; a Hugging Face sliding window of 4096; chunks of 8192 (causal
inside); causal documents (three, lengths in the ratio 40000:50000:41072).
(b) and (c) run the same mask_mod file, written as users write them (the
documents one indexes a torch tensor of document ids). Every run's
kv_num_blocks and full_kv_num_blocks are compared with the others'.
Times are wall clock and the process's CPU time (all threads): on shared
cores the wall clock of a run depends on the neighbours, the CPU time less.

Eager create_block_mask builds the whole Q x K table (about 11 bytes a
cell at its peak): it is run only where that fits in MemAvailable.

    python benchmarks/scale_bench.py [--sizes 8192,32768,131072] [--rules causal,window,chunk,documents]
        [--block 128] [--skip doctor,torch] [--json OUT]"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = ("causal", "window", "chunk", "documents")
WINDOW, CHUNK = 4096, 8192
DOC_RATIO = (40000, 50000, 41072)
#: Eager create_block_mask's peak, bytes per cell (32768²: ~10.5 GiB measured).
TORCH_BYTES_PER_CELL = 11

MODS = '''
import os
import torch

N = int(os.environ["SCALE_N"])
WINDOW, CHUNK = {window}, {chunk}
_ratio = {ratio}
_lengths = [N * r // sum(_ratio) for r in _ratio[:-1]]
LENGTHS = _lengths + [N - sum(_lengths)]
doc_id = torch.repeat_interleave(torch.arange(len(LENGTHS)), torch.tensor(LENGTHS))


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def window(b, h, q_idx, kv_idx):
    return (kv_idx <= q_idx) & (kv_idx > q_idx - WINDOW)


def chunk(b, h, q_idx, kv_idx):
    return (q_idx // CHUNK == kv_idx // CHUNK) & (kv_idx <= q_idx)


def documents(b, h, q_idx, kv_idx):
    return (doc_id[q_idx] == doc_id[kv_idx]) & (kv_idx <= q_idx)
'''.format(window=WINDOW, chunk=CHUNK, ratio=DOC_RATIO)

CHILD = {
    "analytic": '''
from maskattn_tui.doctor.rules import Rule
from maskattn_tui.scale.blocks import from_runs
from maskattn_tui.scale.intervals import rule_runs
lengths = [N * r // sum(RATIO) for r in RATIO[:-1]]
extra = {"causal": {}, "window": {"window": WINDOW}, "chunk": {"chunk": CHUNK},
         "documents": {"documents": tuple(lengths + [N - sum(lengths)])}}[RULE]
t0, c0 = time.perf_counter(), time.process_time()
bm = from_runs(rule_runs(Rule(rows=N, keys=N, offset=0, **extra)), BLOCK, BLOCK)
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
partial, full = bm.kv_num_blocks.tolist(), bm.full_kv_num_blocks.tolist()
''',
    "doctor": '''
import torch
from maskattn_tui.scale.mask_mod import evaluator, load, one_thread
from maskattn_tui.scale.reading import ModReading, diagnose_mod
from maskattn_tui.scale.tiles import scan
t0, c0 = time.perf_counter(), time.process_time()
ev = evaluator(load(MODS + ":" + RULE), RULE, N, N)
with one_thread(ev.engine):  # as doctor_run
    result = scan(ev.tile, N, N, BLOCK, BLOCK)
    diag = diagnose_mod(ModReading(ev, N, N), result.stats)
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
partial, full = result.blocks.kv_num_blocks.tolist(), result.blocks.full_kv_num_blocks.tolist()
extra_out = {"engine": ev.engine, "reading": diag.fit.family if diag.fit else None}
''',
    "torch": '''
import torch
from torch.nn.attention.flex_attention import create_block_mask
from maskattn_tui.scale.mask_mod import load
fn = load(MODS + ":" + RULE)
t0, c0 = time.perf_counter(), time.process_time()
bm = create_block_mask(fn, 1, 1, N, N, device="cpu", BLOCK_SIZE=BLOCK)
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
partial, full = bm.kv_num_blocks[0, 0].tolist(), bm.full_kv_num_blocks[0, 0].tolist()
''',
}

PRELUDE = '''
import json, os, resource, sys, time
sys.path.insert(0, {src!r})
N, BLOCK, RULE, MODS = int(os.environ["SCALE_N"]), {block}, {rule!r}, {mods!r}
WINDOW, CHUNK, RATIO = {window}, {chunk}, {ratio}
extra_out = {{}}
'''
EPILOGUE = '''
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "cpu": cpu, "rss": rss, "partial": partial, "full": full, **extra_out}))
'''


def mem_available() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def run_child(kind: str, n: int, rule: str, block: int, mods: str) -> dict:
    code = PRELUDE.format(src=os.path.join(ROOT, "src"), block=block, rule=rule, mods=mods, window=WINDOW,
                          chunk=CHUNK, ratio=DOC_RATIO) + textwrap.dedent(CHILD[kind]) + EPILOGUE
    env = {**os.environ, "SCALE_N": str(n), "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def mib(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8192,32768,131072")
    ap.add_argument("--rules", default=",".join(RULES))
    ap.add_argument("--block", type=int, default=128)
    ap.add_argument("--skip", default="", help="comma list of analytic,doctor,torch")
    ap.add_argument("--json", help="also write every result here")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rules = args.rules.split(",")
    skip = set(filter(None, args.skip.split(",")))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        mods = os.path.join(tmp, "scale_mods.py")
        with open(mods, "w") as f:
            f.write(MODS)
        print(f"block {args.block}; MemAvailable {mib(mem_available())}; 2 shared cores", flush=True)
        print("| N | rule | (a) analytic | (b) doctor FILE.py:mask_mod | (c) torch create_block_mask | "
              "(b)/(c) time | (b)/(c) RSS | counts equal |", flush=True)
        print("|---|---|---|---|---|---|---|---|", flush=True)
        for n in sizes:
            for rule in rules:
                row = {"n": n, "rule": rule}
                for kind in ("analytic", "doctor", "torch"):
                    if kind in skip:
                        continue
                    if kind == "torch" and n * n * TORCH_BYTES_PER_CELL > 0.85 * mem_available():
                        row[kind] = {"skipped": f"needs ~{mib(n * n * TORCH_BYTES_PER_CELL)}"}
                        continue
                    row[kind] = run_child(kind, n, rule, args.block, mods)
                results.append(row)
                print(_line(row), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


def _cell(r: dict | None) -> str:
    if r is None:
        return "-"
    if "skipped" in r:
        return f"not run ({r['skipped']})"
    if "error" in r:
        return f"error: {r['error']}"
    extra = f", {r['engine']}" if "engine" in r else ""
    return f"{r['seconds']:.2f} s (CPU {r['cpu']:.2f} s), {mib(r['rss'])}{extra}"


def _line(row: dict) -> str:
    a, b, c = row.get("analytic"), row.get("doctor"), row.get("torch")
    runs = [r for r in (a, b, c) if r and "partial" in r]
    equal = all((r["partial"], r["full"]) == (runs[0]["partial"], runs[0]["full"]) for r in runs)
    ratio_t = ratio_m = "-"
    if b and c and "seconds" in b and "seconds" in c:
        ratio_t = f"{b['seconds'] / c['seconds']:.2f} (CPU {b['cpu'] / c['cpu']:.2f})"
        ratio_m = f"{b['rss'] / c['rss']:.2f}"
    return (f"| {row['n']} | {row['rule']} | {_cell(a)} | {_cell(b)} | {_cell(c)} | {ratio_t} | {ratio_m} | "
            f"{'yes' if equal else 'NO'} ({len(runs)} runs) |")


if __name__ == "__main__":
    sys.exit(main())
