"""An outside check of `maskattn-tui doctor`, kept apart from the tests:
masks built by the libraries' own code (transformers masking_utils with
tiny offline configs and caches, torch's mask helpers, FlexAttention
create_mask on CPU, BERT-style extended masks), saved in several file
forms, read by the doctor's command line (--json), and compared with what
the library was asked to build:

  - every slice is read exactly (rule.differs == 0) and no finding is an error
  - the family is the one built (or one of the equally simple readings named)
  - the parameters that tell it (offset, PAD keys, window widths, unused slots,
    documents, blocks) are the built ones
  - where the explorer's options can state the mask, --expect passes on every slice
  - broken masks (controls: a leak, 0 / -inf swapped, a float keep-mask
    added to the scores, is_causal=True with a cache, an off-by-one diagonal,
    and one planted defect per family of scripts/outside_cases_families.py)
    are flagged at their level, naming the planted cells
  - the "To check this reading" line the report prints passes on its file
    (npy, pt, safetensors, npz)
  - scripts/outside_cases_families.py adds the families issue 31 found
    misread: packed encoders, Longformer globals, sinks, BART cross-attention
    with encoder PAD, per-head masks, T5 / ALiBi biases, Flax and Keras masks

    .venv/bin/python scripts/outside_check_doctor.py [--subprocess] [--forms npy,pt,...] [-v]

Needs torch, transformers, safetensors, jax, flax, keras (the test extra). No downloads."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from transformers import LlamaConfig, MistralConfig
from transformers import masking_utils as mu
from transformers.cache_utils import DynamicCache, StaticCache

FORMS = ("npy", "pt", "safetensors", "npz", "torch-text", "numpy-text", "json")
TEXT_MAX = 4096  # cells: text forms only for small masks


def config(impl="sdpa", cls=LlamaConfig, **extra):
    c = cls(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
            num_key_value_heads=2, vocab_size=100, **extra)
    c._attn_implementation = impl
    return c


def cache(cls, tokens, batch=1, **kw):
    c = cls(config=config(), **kw)
    if tokens:
        k = torch.zeros(batch, 2, tokens, 16)
        c.update(k, k, 0)
    return c


def padding(batch_lengths, total, side="left"):
    rows = []
    for n in batch_lengths:
        real = [1] * n
        pad = [0] * (total - n)
        rows.append(pad + real if side == "left" else real + pad)
    return torch.tensor(rows)


def cases():
    """(name, tensor, expected) — expected: family (or families), params, expect argv."""
    out = []
    # causal decoders: prefill, cache, padding, eager / sdpa
    for impl in ("sdpa", "eager"):
        for q, past in ((4, 0), (3, 5), (1, 7), (16, 16)):
            c = cache(DynamicCache, past)
            m = mu.create_causal_mask(config=config(impl), inputs_embeds=torch.zeros(1, q, 32),
                                      attention_mask=torch.ones(1, past + q, dtype=torch.long), cache=c,
                                      position_ids=torch.arange(past, past + q)[None], allow_is_causal_skip=False)
            fam = ("causal",) if q > 1 else ("causal", "cross-attention", "bidirectional")
            out.append((f"hf-causal-{impl}-q{q}-past{past}", m, {"family": fam, "offset": past,
                        "expect": ["--past", str(past), "--new", str(q)]}))
        for lengths, side in (((6, 4), "left"), ((6, 3), "left"), ((5, 2), "right")):
            am = padding(lengths, 6, side)
            m = mu.create_causal_mask(config=config(impl), inputs_embeds=torch.zeros(2, 6, 32), attention_mask=am,
                                      cache=None, position_ids=torch.arange(6)[None].expand(2, -1),
                                      allow_is_causal_skip=False)
            out.append((f"hf-causal-{impl}-pad{side}{lengths}", m, {"family": ("causal",), "pads": [
                6 - n for n in lengths]}))
    # static caches: filled keys, then unused slots
    for slots, filled, q in ((12, 5, 3), (16, 8, 1), (10, 3, 4), (32, 20, 2)):
        c = cache(StaticCache, filled, max_cache_len=slots)
        m = mu.create_causal_mask(config=config(), inputs_embeds=torch.zeros(1, q, 32),
                                  attention_mask=torch.ones(1, filled + q, dtype=torch.long), cache=c,
                                  position_ids=torch.arange(filled, filled + q)[None])
        fam = ("static-cache",) if q > 1 else ("static-cache", "causal", "cross-attention")
        out.append((f"hf-static{slots}-filled{filled}-q{q}", m, {"family": fam, "unused": slots - filled - q}))
    # sliding windows, chunks
    for w in (2, 3, 5):
        for q, past in ((8, 0), (3, 6)):
            c = cache(DynamicCache, past)
            m = mu.create_sliding_window_causal_mask(
                config=config(cls=MistralConfig, sliding_window=w), inputs_embeds=torch.zeros(1, q, 32),
                attention_mask=torch.ones(1, past + q, dtype=torch.long), cache=c,
                position_ids=torch.arange(past, past + q)[None], allow_is_causal_skip=False)
            out.append((f"hf-window{w}-q{q}-past{past}", m, {"family": ("window", "causal"), "window": w,
                        "expect": ["--past", str(past), "--new", str(q), "--window", str(w)]}))
    for chunk in (2, 3, 4):
        cfg = config()
        cfg.attention_chunk_size = chunk
        m = mu.create_chunked_causal_mask(config=cfg, inputs_embeds=torch.zeros(1, 9, 32),
                                          attention_mask=torch.ones(1, 9, dtype=torch.long), cache=None,
                                          position_ids=torch.arange(9)[None])
        out.append((f"hf-chunk{chunk}", m, {"family": ("chunk", "documents"),
                    "expect": ["--past", "0", "--new", "9", "--chunk", str(chunk)]}))
    # encoders, cross-attention, two-sided windows
    for impl in ("sdpa", "eager"):
        for lengths in ((6, 4), (6, 6), (3, 5)):
            am = padding(lengths, 6, "right")
            m = mu.create_bidirectional_mask(config=config(impl), inputs_embeds=torch.zeros(2, 6, 32),
                                             attention_mask=am, allow_is_bidirectional_skip=False)
            out.append((f"hf-encoder-{impl}-{lengths}", m, {"family": ("bidirectional",), "pads": [
                6 - n for n in lengths], "expect_slices": False}))
        for q, k, pad in ((4, 7, 2), (3, 5, 0), (6, 4, 1)):
            am = torch.tensor([[1] * (k - pad) + [0] * pad])
            m = mu.create_bidirectional_mask(config=config(impl), inputs_embeds=torch.zeros(1, q, 32),
                                             attention_mask=am, encoder_hidden_states=torch.zeros(1, k, 32),
                                             allow_is_bidirectional_skip=False)
            out.append((f"hf-cross-{impl}-{q}x{k}-pad{pad}", m, {"family": ("cross-attention",), "pads": [pad]}))
        for w in (1, 2, 3):
            m = mu.create_bidirectional_sliding_window_mask(
                config=config(impl, cls=MistralConfig, sliding_window=w), inputs_embeds=torch.zeros(1, 9, 32),
                attention_mask=torch.ones(1, 9, dtype=torch.long), allow_is_bidirectional_skip=False)
            out.append((f"hf-two-sided-{impl}-w{w}", m, {"family": ("two-sided-window",), "left": w, "right": w}))
    # one query row (a [B, 1, 1, S] mask), PAD keys in the middle, image blocks
    m = mu.create_bidirectional_mask(config=config(), inputs_embeds=torch.zeros(2, 1, 32),
                                     attention_mask=torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]))
    out.append(("hf-one-query", m, {"family": ("causal", "cross-attention", "bidirectional"), "polarity": "attend"}))
    for past, am in ((5, [1, 1, 1, 0, 0, 1, 1]), (6, [1, 1, 0, 1, 1, 1, 1, 1])):
        c = cache(DynamicCache, past)
        q = len(am) - past
        m = mu.create_causal_mask(config=config(), inputs_embeds=torch.zeros(1, q, 32), attention_mask=torch.tensor([am]),
                                  cache=c, position_ids=torch.arange(past, past + q)[None])
        out.append((f"hf-middle-pad-{past}", m, {"family": ("causal",), "gaps": True}))
    for ids in ([-1, -1, 0, 0, 0, -1, 1, 1, 1, -1], [-1, 0, 0, 0, 0, -1, -1, -1], [-1, -1, -1, 3, 3, 3, 3, 3, -1, -1]):
        n = len(ids)
        m = mu.create_causal_mask(config=config(), inputs_embeds=torch.zeros(1, n, 32),
                                  attention_mask=torch.ones(1, n, dtype=torch.long), cache=None,
                                  position_ids=torch.arange(n)[None], block_sequence_ids=torch.tensor([ids]))
        out.append((f"hf-blocks-{n}-{ids.count(-1)}", m, {"family": ("blocks",)}))
    # torch's own helpers
    from torch.nn.attention.bias import causal_lower_right, causal_upper_left

    for n in (3, 8, 33):
        out.append((f"torch-square-{n}", torch.nn.Transformer.generate_square_subsequent_mask(n),
                    {"family": ("causal",), "expect": []}))
        out.append((f"torch-mha-{n}", torch.triu(torch.ones(n, n, dtype=torch.bool), 1),
                    {"family": ("causal",), "polarity": "blocked"}))
    for q, k in ((2, 5), (4, 9), (1, 6)):
        out.append((f"torch-lower-right-{q}x{k}", causal_lower_right(q, k)._materialize(torch.device("cpu")),
                    {"family": ("causal",) if q > 1 else ("causal", "cross-attention"),
                     "expect": ["--past", str(k - q), "--new", str(q)]}))
        out.append((f"torch-upper-left-{q}x{k}", causal_upper_left(q, k)._materialize(torch.device("cpu")),
                    {"family": ("causal", "static-cache", "cross-attention")}))
    # FlexAttention create_mask
    from torch.nn.attention.flex_attention import create_mask

    doc = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2, 3])
    mods = {
        "documents": (lambda b, h, q, kv: (kv <= q) & (doc[q] == doc[kv]), ("documents",),
                      ["--past", "0", "--new", "10", "--documents", "3,2,4,1"]),
        "window3": (lambda b, h, q, kv: (kv <= q) & (q - kv < 3), ("window",),
                    ["--past", "0", "--new", "10", "--window", "3"]),
        "prefix4": (lambda b, h, q, kv: (kv <= q) | (kv < 4), ("prefix",),
                    ["--past", "0", "--new", "10", "--prefix", "4"]),
        "two-sided": (lambda b, h, q, kv: (q - kv).abs() <= 1, ("two-sided-window",), None),
        "doc-window": (lambda b, h, q, kv: (kv <= q) & (doc[q] == doc[kv]) & (q - kv < 2), ("documents", "window"),
                       None),
    }
    for name, (mod, fam, expect) in mods.items():
        m = create_mask(mod, 1, 1, 10, 10, device="cpu")
        out.append((f"flex-{name}", m, {"family": fam, "expect": expect}))
    # BERT / T5 extended additive masks
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        am = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]], dtype=dtype)
        m = (1.0 - am[:, None, None, :]) * torch.finfo(dtype).min
        out.append((f"bert-extended-{dtype}".replace("torch.", ""), m,
                    {"family": ("causal", "cross-attention", "bidirectional"), "polarity": "attend"}))
    # broken masks (controls): the doctor must flag each, at the level given
    n = 6
    tril = torch.ones(n, n, dtype=torch.bool).tril()
    leak = tril.clone()
    leak[2, 4] = True
    out.append(("bug-leak", leak, {"flag": ("leak", "error")}))
    out.append(("bug-swapped-additive", torch.zeros(n, n).masked_fill(tril, float("-inf")),
                {"flag": ("inverted", "error")}))
    # a float keep-mask: kept (Flax, Keras) it is right, added it hides nothing: both said, --float-mask decides
    out.append(("bug-float-keep", tril.float(), {"flag": ("float-keep-mask", "warning")}))
    out.append(("bug-float-keep-added", tril.float(), {"flag": ("float-keep-mask", "error"),
                                                       "argv": ["--float-mask", "added"]}))
    out.append(("bug-is-causal-with-cache", torch.ones(2, 6, dtype=torch.bool).tril(), {"flag": ("top-left", "warning")}))
    off = torch.ones(n, n, dtype=torch.bool).tril(1)  # off by one: every row sees its next key
    out.append(("bug-off-by-one", off, {"flag": ("leak", "error")}))
    # a big one
    out.append(("hf-causal-2048", mu.create_causal_mask(
        config=config(), inputs_embeds=torch.zeros(1, 2048, 32), attention_mask=torch.ones(1, 2048, dtype=torch.long),
        cache=None, position_ids=torch.arange(2048)[None], allow_is_causal_skip=False), {"family": ("causal",)}))
    from outside_cases_families import cases as family_cases  # (this folder: the script's own)

    return out + family_cases()


def save(tensor: torch.Tensor, folder: Path, name: str, form: str) -> Path | None:
    t = tensor.detach().cpu()
    path = folder / f"{name}.{ {'torch-text': 'txt', 'numpy-text': 'np.txt'}.get(form, form)}"
    if form == "npy":
        if t.dtype == torch.bfloat16:
            return None
        np.save(path, t.numpy())
    elif form == "pt":
        torch.save(t, path)
    elif form == "safetensors":
        from safetensors.torch import save_file

        save_file({"mask": t.contiguous()}, str(path))
    elif form == "npz":
        if t.dtype == torch.bfloat16:
            return None
        np.savez(path, mask=t.numpy())
    elif t.numel() > TEXT_MAX or t.dtype in (torch.bfloat16, torch.float16):
        return None
    elif form == "torch-text":
        torch.set_printoptions(profile="full")
        path.write_text(str(t))
        torch.set_printoptions(profile="default")
    elif form == "numpy-text":
        with np.printoptions(threshold=sys.maxsize):
            path.write_text(repr(t.numpy()))
    elif form == "json":
        path.write_text(json.dumps(t.tolist()))
    return path


def run_doctor(argv: list[str], use_subprocess: bool) -> tuple[int, str]:
    if use_subprocess:
        done = subprocess.run([sys.executable, "-m", "maskattn_tui", "doctor", *argv], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr
    from maskattn_tui.cli.commands import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["doctor", *argv])
    return code, out.getvalue() + err.getvalue()


def check(doc: dict, want: dict) -> list[str]:
    if "flag" in want:  # a control: the finding must be there, at its level, naming the planted cells
        code, level = want["flag"]
        found = [f for f in doc["findings"] if f["code"] == code and f["level"] == level]
        if found and all(c in f["cells"] for c in want.get("cells", ()) for f in found[:1]):
            return []
        return [f"not flagged {code} ({level}) at {want.get('cells')}: "
                f"{[(f['code'], f['level'], f['cells'][:3]) for f in doc['findings']]}"]
    problems = []
    slices = doc.get("slices") or [{"family": doc["family"], "differs": doc["rule"]["differs"],
                                    "findings": doc["findings"], "pad_key_count": doc["pad_key_count"]}]
    for s in slices:
        if s["differs"]:
            problems.append(f"reading not exact ({s['differs']} cells)")
        if any(f["level"] == "error" for f in s["findings"]):
            problems.append("error: " + ",".join(f["code"] for f in s["findings"] if f["level"] == "error"))
    families = {doc["family"], *(a["family"] for a in doc["alternatives"])}
    if not families & set(want["family"]):
        problems.append(f"family {sorted(families)} not {want['family']}")
    if "polarity" in want and doc["polarity"] != want["polarity"]:
        problems.append(f"polarity {doc['polarity']}")
    if "offset" in want and want["family"] == ("causal",) and doc["offset"] != want["offset"]:
        problems.append(f"offset {doc['offset']} not {want['offset']}")
    if "unused" in want and doc["family"] == "static-cache" and doc["unused_slot_count"] != want["unused"]:
        problems.append(f"unused {doc['unused_slot_count']} not {want['unused']}")
    if "window" in want and doc["family"] == "window" and doc["window"] != want["window"]:
        problems.append(f"window {doc['window']} not {want['window']}")
    if "left" in want and (doc["window_left"], doc["window_right"]) != (want["left"], want["right"]):
        problems.append(f"widths {(doc['window_left'], doc['window_right'])}")
    if "pads" in want and doc.get("slices"):
        got = [s["pad_key_count"] for s in doc["slices"]]
        if sorted(got) != sorted(set(want["pads"])) and got != want["pads"]:
            problems.append(f"PAD per slice {got} not {want['pads']}")
    if want.get("no_pad_query") and doc["pad_query_row_count"]:
        problems.append(f"PAD query rows {doc['pad_query_rows']} in a cross-attention")
    if want.get("no_pad") and doc["pad_key_count"]:
        problems.append(f"PAD keys {doc['pad_keys']} (globals or sinks read as PAD?)")
    if "documents" in want and doc["documents"] != want["documents"]:
        problems.append(f"documents {doc['documents']} not {want['documents']}")
    if "globals" in want and doc["rule"].get("globals") != want["globals"]:
        problems.append(f"globals {doc['rule'].get('globals')} not {want['globals']}")
    if want.get("bias") and doc["representation"] not in ("bias", "bias-mask"):
        problems.append(f"representation {doc['representation']}, not a bias")
    if want.get("keep_mask") and doc["representation"] == "float01" and not any(
            f["code"] == "float-keep-mask" and f["level"] == "warning" for f in doc["findings"]):
        problems.append("a float 0/1 keep-mask without its two readings (added / kept) at warning level")
    if want.get("heads_differ") and not doc.get("slices"):
        problems.append("per-head slices not read apart")
    if want.get("gaps") and not any(a > 0 and b < doc["shape"][1] for a, b in doc["pad_runs"]):
        problems.append(f"no PAD between real keys: {doc['pad_runs']}")
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subprocess", action="store_true", help="run the installed command per file (slower)")
    ap.add_argument("--forms", default=",".join(FORMS), help="file forms to write (default: all)")
    ap.add_argument("-v", action="store_true", help="print every case")
    args = ap.parse_args(argv)
    all_cases = cases()
    agree = total = expects = expects_ok = lines_run = lines_ok = 0
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, tensor, want in all_cases:
            for form in args.forms.split(","):
                path = save(tensor, folder, name, form)
                if path is None:
                    continue
                total += 1
                code, text = run_doctor([str(path), "--json", *want.get("argv", ())], args.subprocess)
                try:
                    problems = check(json.loads(text), want) if code == 0 else [f"exit {code}: {text.strip()[:120]}"]
                except json.JSONDecodeError:
                    problems = [f"not JSON: {text[:120]}"]
                if want.get("expect") is not None and form == "npy":
                    expects += 1
                    code, text = run_doctor([str(path), "--expect", *want["expect"]], args.subprocess)
                    if code == 0:
                        expects_ok += 1
                    else:
                        problems.append("--expect: " + text.strip().splitlines()[0][:120])
                if form in ("npy", "pt", "npz", "safetensors"):  # the printed check line, run on its file
                    line = next((ln for ln in run_doctor([str(path)], False)[1].splitlines()
                                 if "maskattn-tui doctor" in ln), None)
                    if line is not None:
                        lines_run += 1
                        code, text = run_doctor(shlex.split(line.split("maskattn-tui doctor", 1)[1]), args.subprocess)
                        if code == 0:
                            lines_ok += 1
                        else:
                            problems.append(f"printed check line fails ({line.strip()}): {text.strip()[:100]}")
                if problems:
                    failures.append((name, form, problems))
                else:
                    agree += 1
                if args.v:
                    print(f"{'ok ' if not problems else 'BAD'} {name:34} {form:12} {'; '.join(problems)}")
    controls = sum(1 for _, _, want in all_cases if "flag" in want)
    print(f"cases: {len(all_cases)} masks ({controls} broken controls); files read: {total}; "
          f"agree: {agree}/{total}; --expect passes: {expects_ok}/{expects}; "
          f"printed check lines pass: {lines_ok}/{lines_run}")
    misread = sorted({name for name, _, _ in failures})
    print(f"masks misread or controls missed: {len(misread)} of {len(all_cases)}")
    for name, form, problems in failures:
        print(f"  DISAGREE {name} ({form}): {'; '.join(problems)}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
