"""What does capture cost? A small random-weight Llama (built from a config,
no download) runs the same forward with and without `maskattn_tui.capture`,
in interleaved pairs (without, with, without, with, ...), and the medians
and their ratio are printed; then one child process per side runs the
forwards alone and reports its peak RSS (ru_maxrss), and the capture
folder's size is measured.

    python benchmarks/capture_bench.py [--runs 30] [--sizes toy,small,generate,big[,deep,floor]] [--folders DIR] [--json]

toy:      2 layers, hidden 32, batch 2 x 16 tokens (a ~2 ms forward: the
          fixed cost per attention call shows)
small:    4 layers, hidden 256, 8 heads, batch 4 x 512 tokens, left-padded
          (a forward of about a second: what a user's debug run looks like)
generate: a tiny Llama (2 layers, hidden 64), generate(max_new_tokens=16)
          on a left-padded batch of 2 x 16: 17 forwards of a few ms each,
          every layer's call recorded at every step
deep:     the same generate on a deeper, wider random Llama (16 layers,
          hidden 512: steps of ~10 ms, 16 layers' calls each); not run by
          default
floor:    the tiny generate again, with capture's records cut down in
          this benchmark's process only (a what-if, not an option of the
          tool): "nothing" records no call (every hook still runs);
          "new_facts" records only the two calls of each step that carry
          something new (the mask builder's call and the first layer's
          HF call: its new mask, its cache positions), as a capture that
          wrote every other call as "like that one" at no cost would; not
          run by default
big:      one SDPA call with a float [8,1,4096,4096] additive mask (causal,
          one batch row with 3 more keys hidden: two distinct tables);
          "first" is a new mask tensor under capture (8 slices hashed, 2
          written: 128 MiB), "with" the same unchanged tensor again

"+N us CPU a call" is the capture's extra CPU time over the run's
recorded calls: what carries over to a bigger model (a 32-layer decode step
pays it for each of its calls, against a step that takes far longer).

"with" is the second forward inside a capture (every call recorded, its
new mask tensors hashed); "first" is the first one (it also names the
modules, wraps transformers' registries and writes the masks). The first
pair is a warm-up. Times are wall clock and CPU time of the process (the
CPU ratio is the steadier one on a shared machine). Run `python -m
compileall -q src` first when PYTHONDONTWRITEBYTECODE is set. A benchmark,
not a test: nothing here asserts a time."""

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
    "generate": dict(layers=2, hidden=64, heads=4, kv_heads=2, batch=2, tokens=16, pad=3, new=16),
    "deep": dict(layers=16, hidden=512, heads=8, kv_heads=4, batch=2, tokens=16, pad=3, new=16),
}


def model_and_batch(size: str):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    s = SIZES[size]
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=128, hidden_size=s["hidden"], intermediate_size=2 * s["hidden"],
                         num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
                         num_key_value_heads=s["kv_heads"], max_position_embeddings=s["tokens"] + s.get("new", 0),
                         attn_implementation="sdpa")
    model = LlamaForCausalLM(config).eval()
    ids = torch.randint(1, 128, (s["batch"], s["tokens"]))
    attention = torch.ones_like(ids)
    attention[0, :s["pad"]] = 0  # one left-padded row: SDPA gets a real mask
    return model, ids, attention


#: where the capture folders are made (--folders; None: the system's temporary folder)
WHERE = None


class Clock:
    """Wall clock and this process's CPU time of a block."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def _medians(times: dict) -> dict:
    out = {}
    for name, clocks in times.items():
        out[f"{name}_ms"] = 1000 * statistics.median(c.wall for c in clocks)
        out[f"{name}_cpu_ms"] = 1000 * statistics.median(c.cpu for c in clocks)
    out["ratio"] = out["with_ms"] / out["without_ms"]
    out["cpu_ratio"] = out["with_cpu_ms"] / out["without_cpu_ms"]
    return out


def pairs(size: str, runs: int) -> dict:
    import torch

    from maskattn_tui import capture

    torch.set_num_threads(1)
    model, ids, attention = model_and_batch(size)
    new = SIZES[size].get("new")

    def run():
        if new:
            return model.generate(input_ids=ids, attention_mask=attention, max_new_tokens=new, do_sample=False,
                                  pad_token_id=0)
        return model(ids, attention_mask=attention, use_cache=False).logits

    times: dict = {"without": [], "with": [], "first": []}
    with tempfile.TemporaryDirectory(dir=WHERE) as folder, torch.no_grad():
        for i in range(runs + 1):
            with Clock() as without:
                plain = run()
            with capture(folder) as cap:
                with Clock() as first:
                    run()
                with Clock() as with_capture:
                    captured = run()
            if i:
                times["without"].append(without)
                times["with"].append(with_capture)
                times["first"].append(first)
            assert torch.equal(plain, captured)
        calls = len(cap.calls) // 2
        disk = sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(folder)
                   for name in names)
    medians = _medians(times)
    # what a call costs: the figure that carries over to a bigger model, whose steps take longer
    per_call = 1000 * (medians["with_cpu_ms"] - medians["without_cpu_ms"]) / calls if calls else None
    return {**medians, "calls_per_forward": calls, "extra_cpu_us_per_call": per_call, "capture_kib": disk / 1024,
            "runs": runs}


def big_mask(runs: int) -> dict:
    """One SDPA call with a float [8,1,4096,4096] mask: without capture, a
    new mask under capture, the same unchanged mask again."""
    import torch
    import torch.nn.functional as F

    from maskattn_tui import capture

    torch.set_num_threads(1)
    torch.manual_seed(0)
    q = torch.randn(8, 1, 4096, 8)
    causal = torch.ones(4096, 4096, dtype=torch.bool).triu(1)
    times: dict = {"without": [], "with": [], "first": []}
    for i in range(runs + 1):
        mask = torch.zeros(8, 1, 4096, 4096).masked_fill(causal, float("-inf"))
        mask[1, :, :, :3] = float("-inf")
        with Clock() as without:
            plain = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
        with tempfile.TemporaryDirectory(dir=WHERE) as folder:
            with capture(folder) as cap:
                with Clock() as first:
                    F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
                with Clock() as again:
                    captured = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
            masks = len(os.listdir(os.path.join(folder, "masks")))
        assert torch.equal(plain, captured) and len(cap.calls) == 2 and masks == 2
        if i:
            times["without"].append(without)
            times["with"].append(again)
            times["first"].append(first)
        del mask
    return {**_medians(times), "runs": runs}


def floor(runs: int) -> dict:
    """The tiny generate without capture, with it, and with its records
    cut down (see the module's docstring), interleaved in one run."""
    import torch

    from maskattn_tui import capture
    from maskattn_tui.capture.recorder import Recorder

    torch.set_num_threads(1)
    model, ids, attention = model_and_batch("generate")
    record = Recorder.record

    def cut(keep):
        def cut_record(self, kind, describe, entry, where=None, module=None):
            if keep(kind, module):
                return record(self, kind, describe, entry, where, module)
            self.count += 1  # (the call's number is taken, as a "like" record would take it)
            return self.count - 1
        return cut_record

    variants = {"full": record, "new_facts": cut(lambda kind, module: kind == "hf-mask" or (
                    kind == "hf" and getattr(module, "layer_idx", None) == 0)),
                "nothing": cut(lambda kind, module: False)}
    times: dict = {"without": [], **{name: [] for name in variants}}

    def run():
        model.generate(input_ids=ids, attention_mask=attention, max_new_tokens=16, do_sample=False, pad_token_id=0)

    try:
        with torch.no_grad(), tempfile.TemporaryDirectory(dir=WHERE) as folder:
            for i in range(runs + 1):
                with Clock() as without:
                    run()
                if i:
                    times["without"].append(without)
                for name, variant in variants.items():
                    Recorder.record = variant
                    with capture(folder):
                        run()
                        with Clock() as clock:
                            run()
                    if i:
                        times[name].append(clock)
    finally:
        Recorder.record = record
    base = statistics.median(c.cpu for c in times["without"])
    return {"without_cpu_ms": 1000 * base, "runs": runs,
            **{f"{name}_cpu_ratio": statistics.median(c.cpu for c in times[name]) / base for name in variants}}


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
    parser.add_argument("--sizes", default="toy,small,generate,big")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--folders", metavar="DIR", help="make the capture folders here (e.g. /dev/shm: a tmpfs)")
    args = parser.parse_args()
    global WHERE
    WHERE = args.folders
    results = {}
    for size in args.sizes.split(","):
        if size == "big":
            results[size] = big_mask(max(3, args.runs // 6))
            continue
        if size == "floor":
            results[size] = floor(max(5, args.runs // 2))
            continue
        runs = args.runs if size == "toy" else max(5, args.runs // 2) if size in ("generate", "deep") \
            else max(3, args.runs // 6)
        result = pairs(size, runs)
        result["peak_without_mib"] = peak_mib(size, False)
        result["peak_with_mib"] = peak_mib(size, True)
        results[size] = result
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for size, r in results.items():
        if size == "floor":
            print(f"floor    without {r['without_cpu_ms']:.2f} ms CPU; every call recorded {r['full_cpu_ratio']:.3f}x, "
                  f"only the new facts {r['new_facts_cpu_ratio']:.3f}x, nothing recorded "
                  f"{r['nothing_cpu_ratio']:.3f}x  ({r['runs']} runs each)")
            continue
        print(f"{size:8} without {r['without_ms']:9.2f} ms  with {r['with_ms']:9.2f} ms  ratio {r['ratio']:.3f}x  "
              f"(CPU {r['without_cpu_ms']:.2f} / {r['with_cpu_ms']:.2f} ms: {r['cpu_ratio']:.3f}x)  "
              f"first {r['first_ms']:9.2f} ms", end="")
        if "calls_per_forward" in r:
            each = r["extra_cpu_us_per_call"]
            print(f"  ({r['calls_per_forward']} calls/run, "
                  f"{'+%.0f us CPU a call, ' % each if each is not None else ''}capture {r['capture_kib']:.0f} KiB, "
                  f"peak RSS {r['peak_without_mib']:.0f} -> {r['peak_with_mib']:.0f} MiB, {r['runs']} pairs)")
        else:
            print(f"  ({r['runs']} runs)")


if __name__ == "__main__":
    main()
