"""What does capture cost? A small random-weight Llama (built from a config,
no download) runs the same forward with and without `maskattn_tui.capture`,
in interleaved pairs (without, with, without, with, ...), and the medians
and their ratio are printed; then one child process per side runs the
forwards alone and reports its peak RSS (ru_maxrss), and the capture
folder's size is measured.

    python benchmarks/capture_bench.py [--runs 30] [--sizes toy,small] [--json]

toy:   2 layers, hidden 32, batch 2 x 16 tokens (a ~2 ms forward: the
       fixed cost per attention call shows)
small: 4 layers, hidden 256, 8 heads, batch 4 x 512 tokens, left-padded
       (a forward of about a second: what a user's debug run looks like)

"with" is the second forward inside a capture (every call recorded, its
new mask tensors hashed); "first" is the first one (it also names the
modules, wraps transformers' registries and writes the masks). The first
pair is a warm-up. Run `python -m compileall -q src` first when
PYTHONDONTWRITEBYTECODE is set. A benchmark, not a test: nothing here
asserts a time."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SIZES = {
    "toy": dict(layers=2, hidden=32, heads=4, kv_heads=2, batch=2, tokens=16, pad=3),
    "small": dict(layers=4, hidden=256, heads=8, kv_heads=4, batch=4, tokens=512, pad=100),
}


def model_and_batch(size: str):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    s = SIZES[size]
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=s["hidden"], intermediate_size=2 * s["hidden"],
                         num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
                         num_key_value_heads=s["kv_heads"], max_position_embeddings=s["tokens"],
                         attn_implementation="sdpa")
    model = LlamaForCausalLM(config).eval()
    ids = torch.randint(1, 128, (s["batch"], s["tokens"]))
    attention = torch.ones_like(ids)
    attention[0, :s["pad"]] = 0  # one left-padded row: SDPA gets a real mask
    return model, ids, attention


def pairs(size: str, runs: int) -> dict:
    import torch

    from maskattn_tui import capture

    torch.set_num_threads(1)
    model, ids, attention = model_and_batch(size)
    times = {"without": [], "with": [], "first": []}
    with tempfile.TemporaryDirectory() as folder, torch.no_grad():
        for i in range(runs + 1):
            start = time.perf_counter()
            plain = model(ids, attention_mask=attention, use_cache=False).logits
            without = time.perf_counter() - start
            with capture(folder) as cap:
                start = time.perf_counter()
                model(ids, attention_mask=attention, use_cache=False)
                first = time.perf_counter() - start
                start = time.perf_counter()
                captured = model(ids, attention_mask=attention, use_cache=False).logits
                with_capture = time.perf_counter() - start
            if i:
                times["without"].append(without)
                times["with"].append(with_capture)
                times["first"].append(first)
            assert torch.equal(plain, captured)
        calls = len(cap.calls) // 2
        disk = sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(folder)
                   for name in names)
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"without_ms": 1000 * med["without"], "with_ms": 1000 * med["with"], "first_ms": 1000 * med["first"],
            "ratio": med["with"] / med["without"], "calls_per_forward": calls, "capture_kib": disk / 1024,
            "runs": runs}


CHILD = """
import sys, resource, tempfile, torch
sys.path.insert(0, {here!r})
from capture_bench import model_and_batch
from maskattn_tui import capture
torch.set_num_threads(1)
model, ids, attention = model_and_batch({size!r})
with torch.no_grad():
    if {captured}:
        with tempfile.TemporaryDirectory() as folder, capture(folder):
            for _ in range(3):
                model(ids, attention_mask=attention, use_cache=False)
    else:
        for _ in range(3):
            model(ids, attention_mask=attention, use_cache=False)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_mib(size: str, captured: bool) -> float:
    code = CHILD.format(here=os.path.dirname(os.path.abspath(__file__)), size=size, captured=captured)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--sizes", default="toy,small")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    for size in args.sizes.split(","):
        runs = args.runs if size == "toy" else max(3, args.runs // 6)
        result = pairs(size, runs)
        result["peak_without_mib"] = peak_mib(size, False)
        result["peak_with_mib"] = peak_mib(size, True)
        results[size] = result
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for size, r in results.items():
        print(f"{size:6} without {r['without_ms']:9.2f} ms  with {r['with_ms']:9.2f} ms  ratio {r['ratio']:.3f}x  "
              f"first {r['first_ms']:9.2f} ms  "
              f"({r['calls_per_forward']} calls/forward, capture {r['capture_kib']:.0f} KiB, "
              f"peak RSS {r['peak_without_mib']:.0f} -> {r['peak_with_mib']:.0f} MiB, {r['runs']} pairs)")


if __name__ == "__main__":
    main()
