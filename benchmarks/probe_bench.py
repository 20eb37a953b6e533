"""What does the probe cost beyond the model runs it needs? A random-weight
Llama (built from a config, no download) is probed (every invariance,
nothing broken, so nothing captured) and, interleaved with it, the same
forwards are made bare: each distinct run of the probe (runs.py), its
steps called as `model(**kwargs)` in a plain loop with a fresh cache and
the attention implementation switched, nothing compared (one torch
thread). Medians, minima and their ratios are printed. Then one child process per side reports its peak
RSS (VmHWM, reset after a 4-token warm-up forward: the model's random
initialisation peaks higher than a forward): one forward of the probed
sequence, and the probe; what is above the RSS at the reset is what the
forward (its activations and logits) or the probe needed.

    python benchmarks/probe_bench.py [--runs 15] [--sizes tiny,mid] [--json]

tiny: 2 layers, hidden 32, vocab 64, 12 tokens (the tests' model)
mid:  4 layers, hidden 256, 8 heads, vocab 32000, 256 tokens (logits of
      32 MiB a forward: what the probe keeps shows)

Run `python -m compileall -q src` first when PYTHONDONTWRITEBYTECODE is
set. A benchmark, not a test: nothing here asserts a time."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SIZES = {
    "tiny": dict(layers=2, hidden=32, heads=4, vocab=64, tokens=12),
    "mid": dict(layers=4, hidden=256, heads=8, vocab=32000, tokens=256),
}


def model_and_ids(size: str):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.set_num_threads(1)  # as capture_bench: steadier on a shared machine; both sides alike

    s = SIZES[size]
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=s["vocab"], hidden_size=s["hidden"], intermediate_size=2 * s["hidden"],
                         num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
                         num_key_value_heads=s["heads"] // 2, max_position_embeddings=s["tokens"] * 2,
                         attn_implementation="sdpa")
    model = LlamaForCausalLM(config).eval()
    ids = torch.randint(1, s["vocab"], (1, s["tokens"]), generator=torch.Generator().manual_seed(1))
    return model, ids


def bare_runs(model, ids) -> list:
    """The distinct runs the probe makes, from its own description."""
    import torch

    from maskattn_tui.probe import runs as R
    from maskattn_tui.probe.model_io import LIBRARY_BACKENDS, ModelIO

    io = ModelIO(model)
    generator = torch.Generator().manual_seed(0)
    vocab = io.vocab_size(ids)
    cases = (R.future(ids, vocab, generator) + R.cache(ids, io.cache_kinds()) +
             R.padding(ids, io.pad_id, vocab, generator, True) + R.chunked(ids) + R.packing(ids) +
             R.backends(ids, io.backend, LIBRARY_BACKENDS))
    distinct = {}
    for case in cases:
        for run in (case.a, case.b):
            distinct.setdefault(run.key, run)
    return list(distinct.values())


def bare(model, runs) -> None:
    import torch
    from transformers import DynamicCache, StaticCache

    for run in runs:
        before = model.config._attn_implementation
        if run.backend:
            model.set_attn_implementation(run.backend)
        cache = None
        if run.cache == "dynamic":
            cache = DynamicCache(config=model.config)
        elif run.cache == "static":
            cache = StaticCache(config=model.config, max_cache_len=sum(s.input_ids.shape[1] for s in run.steps))
        with torch.no_grad():
            for step in run.steps:
                kwargs = {"input_ids": step.input_ids}
                if step.attention_mask is not None:
                    kwargs["attention_mask"] = step.attention_mask
                if step.position_ids is not None:
                    kwargs["position_ids"] = step.position_ids
                if cache is not None:
                    kwargs["cache"], kwargs["use_cache"] = cache, True
                else:
                    kwargs["use_cache"] = step.use_cache
                model(**kwargs).logits
        if run.backend:
            model.set_attn_implementation(before)


def timing(size: str, runs: int) -> dict:
    from maskattn_tui.probe import probe

    model, ids = model_and_ids(size)
    plan = bare_runs(model, ids)
    forwards = sum(len(r.steps) for r in plan)
    probe(model, ids)  # warm-up: imports, first kernels
    bare(model, plan)
    probe_t, bare_t = [], []
    for _ in range(runs):  # interleaved: machine noise hits each alike
        start = time.perf_counter()
        report = probe(model, ids)
        probe_t.append(time.perf_counter() - start)
        assert report.exit_code == 0  # a broken one would add captured re-runs
        start = time.perf_counter()
        bare(model, plan)
        bare_t.append(time.perf_counter() - start)
    med_p, med_b = statistics.median(probe_t), statistics.median(bare_t)
    return {"size": size, "forwards": forwards, "runs": runs, "probe_s": med_p, "bare_s": med_b,
            "ratio": med_p / med_b, "probe_min_s": min(probe_t), "bare_min_s": min(bare_t)}


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))


def child(size: str, what: str) -> None:
    import torch

    model, ids = model_and_ids(size)
    with torch.no_grad():
        model(ids[:, :4])  # warm-up: lazily loaded kernels
    # the model's random initialisation peaked higher than a forward does:
    # reset the peak (VmHWM) to the current RSS (Linux: clear_refs 5)
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    base = _status_kib("VmRSS")
    if what == "forward":
        with torch.no_grad():
            model(ids, use_cache=False).logits
    else:
        from maskattn_tui.probe import probe

        probe(model, ids)
    print(json.dumps({"base_kib": base, "peak_kib": _status_kib("VmHWM")}))


def memory(size: str) -> dict:
    out = {}
    for what in ("forward", "probe"):
        # glibc raises its mmap threshold after the first large free, and then keeps freed
        # logits in its heap: RSS would count memory no tensor holds. A fixed threshold
        # hands every large block back at once, so the peak is what was alive.
        env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072"}
        done = subprocess.run([sys.executable, __file__, "--child", size, what], capture_output=True, text=True,
                              check=True, env=env)
        out[what] = json.loads(done.stdout.strip().splitlines()[-1])
    above = {w: (v["peak_kib"] - v["base_kib"]) / 1024 for w, v in out.items()}
    return {"forward_peak_mib": out["forward"]["peak_kib"] / 1024, "probe_peak_mib": out["probe"]["peak_kib"] / 1024,
            "peak_ratio": out["probe"]["peak_kib"] / out["forward"]["peak_kib"],
            "forward_above_mib": above["forward"], "probe_above_mib": above["probe"],
            "above_ratio": above["probe"] / above["forward"] if above["forward"] > 0 else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sizes", default="tiny,mid")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("SIZE", "WHAT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    results = []
    for size in args.sizes.split(","):
        runs = args.runs if size == "tiny" else max(3, args.runs // 3)
        results.append({**timing(size, runs), **memory(size)})
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print(f"{r['size']}: {r['forwards']} forwards; probe {r['probe_s'] * 1000:.1f} ms vs bare "
              f"{r['bare_s'] * 1000:.1f} ms (medians of {r['runs']}): {r['ratio']:.2f}x; "
              f"min {r['probe_min_s'] * 1000:.1f} / {r['bare_min_s'] * 1000:.1f} ms")
        above = f"{r['above_ratio']:.2f}x" if r["above_ratio"] is not None else "-"
        print(f"  peak RSS: one forward {r['forward_peak_mib']:.0f} MiB, the probe {r['probe_peak_mib']:.0f} MiB "
              f"({r['peak_ratio']:.2f}x); above the warmed-up model: {r['forward_above_mib']:.1f} vs "
              f"{r['probe_above_mib']:.1f} MiB ({above})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
