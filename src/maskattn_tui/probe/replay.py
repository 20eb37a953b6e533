"""`maskattn-tui probe --replay DIR`: each distinct call of a capture folder
re-run with random q / k / v of its recorded shape (batch, heads, queries,
keys; the head size from its scale, else 16) through every attention path
this machine has, each compared row by row with a float64 reference
computed from the call's table (softmax over the visible keys; a row with
no visible key gives 0):
- sdpa-math, sdpa-flash: F.scaled_dot_product_attention with the bool
  table under sdpa_kernel(MATH) / (FLASH_ATTENTION) (on CPU the flash
  backend takes a mask; on a GPU the same command adds its backends:
  efficient, cuDNN);
- flex: FlexAttention, eager, the table as its mask_mod;
- hf-eager: transformers' eager formula, the dtype's minimum added to the
  hidden cells (a row with none visible: a uniform average);
- softmax: a plain softmax over -inf (a row with none visible: NaN).
A row that differs is named: NaN, the uniform average over every key, the
result of another recorded table (by its call), or by how much.
A float mask holding values other than 0 and a minimum (a bias, ALiBi) is
not a visibility table: its call is skipped, and said."""

from __future__ import annotations

import math
import sys
import warnings

from maskattn_tui.i18n import t

SCHEMA = "maskattn-probe-replay/1"
#: the largest call replayed (cells of batch x heads x queries x keys)
MOST_CELLS = 1 << 22
#: a path's row agrees with the reference within this (values of v are N(0, 1))
ATOL = 1e-4


def _tables(folder: str, call: dict):
    """The call's visibility [B, H, Q, K] (its slices broadcast), or None."""
    import torch

    from maskattn_tui.capture.table_files import read_table_of

    rows = []
    for row in call["mask"]["hashes"]:
        heads = []
        for digest in row:
            table = torch.tensor(read_table_of(folder, digest, [call])[0])  # through the folder's one reader (a copy)
            if table.dtype != torch.bool:
                hidden = ~torch.isfinite(table) | (table <= torch.finfo(table.dtype).min / 2)
                if bool((table[~hidden] != 0).any()):
                    return None  # a bias, not a visibility table
                table = ~hidden
            heads.append(table)
        rows.append(torch.stack(heads))
    out = torch.stack(rows)
    return out.expand(call["batch"], call["heads"], *out.shape[2:])


def _reference(q, k, v, visible, scale):
    import torch

    scores = (q.double() @ k.double().transpose(-1, -2)) * scale
    scores = scores.masked_fill(~visible, float("-inf"))
    weights = torch.softmax(scores, -1).nan_to_num(0.0)  # an empty row: 0
    return weights @ v.double()


def _paths(torch_):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def sdpa(backend):
        def run(q, k, v, visible, scale):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, attn_mask=visible, scale=scale)
        return run

    def flex(q, k, v, visible, scale):
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        def mask_mod(b, h, q_idx, kv_idx):
            return visible[b, h, q_idx, kv_idx]

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            block = create_block_mask(mask_mod, *visible.shape, device=str(q.device))
            return flex_attention(q, k, v, block_mask=block, scale=scale)

    def hf_eager(q, k, v, visible, scale):
        scores = q @ k.transpose(-1, -2) * scale
        scores = scores + torch_.where(visible, 0.0, torch_.finfo(q.dtype).min)
        return torch_.softmax(scores, -1) @ v

    def plain(q, k, v, visible, scale):
        scores = (q @ k.transpose(-1, -2) * scale).masked_fill(~visible, float("-inf"))
        return torch_.softmax(scores, -1) @ v

    return {"sdpa-math": sdpa(SDPBackend.MATH), "sdpa-flash": sdpa(SDPBackend.FLASH_ATTENTION), "flex": flex,
            "hf-eager": hf_eager, "softmax": plain}


def _distinct(calls: list[dict]) -> list[dict]:
    from maskattn_tui.capture.findings import primary

    seen, out = set(), []
    for call in primary(calls):
        mask = call.get("mask") or {}
        if not mask.get("hashes") or not all(isinstance(call.get(n), int) for n in ("batch", "heads")):
            continue
        key = (tuple(map(tuple, mask["hashes"])), call["batch"], call["heads"], call["q_len"], call["k_len"])
        if key not in seen:
            seen.add(key)
            out.append(call)
    return out


def replay(folder: str, seed: int = 0) -> dict:
    import torch

    from maskattn_tui.capture import folder as capture_folder

    document = capture_folder.load(folder)
    paths = _paths(torch)
    generator = torch.Generator().manual_seed(seed)
    calls = _distinct(document["calls"])
    visible_of = {c["call"]: _tables(folder, c) for c in calls}
    results = []
    for call in calls:
        entry = {"call": call["call"], "site": call.get("site") or call.get("user_frame"),
                 "step": call.get("generate_step"), "shape": [call["batch"], call["heads"], call["q_len"],
                                                              call["k_len"]], "paths": {}, "skipped": None}
        results.append(entry)
        table = visible_of[call["call"]]
        if table is None:
            entry["skipped"] = "bias"
            continue
        if table.numel() > MOST_CELLS:
            entry["skipped"] = "size"
            continue
        b, h, nq, nk = table.shape
        scale = call.get("scale") if isinstance(call.get("scale"), float) and call["scale"] > 0 else None
        d = min(64, max(1, round(scale ** -2))) if scale else 16
        q, k, v = (torch.randn(b, h, n, d, generator=generator) for n in (nq, nk, nk))
        scale = scale or d ** -0.5
        visible = table.contiguous()
        ref = _reference(q, k, v, visible, scale)
        others = {c: _reference(q, k, v, o.contiguous(), scale)
                  for c, o in visible_of.items() if c != call["call"] and o is not None and o.shape == table.shape}
        uniform = v.double().mean(-2, keepdim=True).expand_as(ref)
        for name, path in paths.items():
            try:
                with torch.no_grad():
                    out = path(q, k, v, visible, scale).double()
            except Exception as e:  # noqa: BLE001 - a path this machine or this table cannot run
                entry["paths"][name] = {"status": "unavailable", "error": f"{type(e).__name__}: {str(e)[:120]}"}
                continue
            entry["paths"][name] = _rows(out, ref, uniform, others)
    return {"schema": SCHEMA, "folder": folder, "seed": seed, "calls": results,
            "wrong_rows": sum(len(p.get("rows", [])) for r in results for p in r["paths"].values())}


def _rows(out, ref, uniform, others: dict) -> dict:
    """Each (batch, head, row) where the path differs from the reference, and what it gave."""
    diff = (out - ref).abs().amax(-1)
    wrong = ~(diff <= ATOL)  # NaN counts as wrong
    rows = []
    for b, h, r in wrong.nonzero().tolist():
        row = out[b, h, r]
        if row.isnan().any():
            what = {"got": "nan"}
        elif (row - uniform[b, h, r]).abs().max() <= ATOL:
            what = {"got": "uniform"}
        else:
            match = next((c for c, o in others.items() if (row - o[b, h, r]).abs().max() <= ATOL), None)
            what = {"got": "call", "of_call": match} if match is not None else \
                {"got": "differs", "by": float(diff[b, h, r])}
        rows.append({"batch": b, "head": h, "row": r, **what})
    largest = float(diff.nan_to_num(float("inf")).max())
    return {"status": "agrees" if not rows else "differs",
            "max_diff": largest if math.isfinite(largest) else None, "rows": rows}  # None: a NaN or inf row


def lines(result: dict, lang: str) -> list[str]:
    out = [t("probe.replay.head", lang, folder=result["folder"], calls=len(result["calls"]), seed=result["seed"])]
    for entry in result["calls"]:
        b, h, q, k = entry["shape"]
        out.append(t("probe.replay.call", lang, call=entry["call"], site=entry["site"] or "-", b=b, h=h, q=q, k=k))
        if entry["skipped"]:
            out.append("    " + t(f"probe.replay.skipped.{entry['skipped']}", lang))
            continue
        for name, path in entry["paths"].items():
            if path["status"] != "differs":
                word = t(f"probe.replay.{path['status']}", lang, error=path.get("error", ""))
                out.append(f"    {name:<10} {word}")
                continue
            out.append(f"    {name:<10} " + t("probe.replay.differs", lang, count=len(path["rows"]),
                                              rows=_named_rows(path["rows"], lang)))
    out.append(t("probe.replay.summary", lang, wrong=result["wrong_rows"]))
    return out


def _named_rows(rows: list[dict], lang: str) -> str:
    groups: dict[tuple, list[str]] = {}
    for r in rows:
        what = r["got"]
        key = (what, r.get("of_call"))
        groups.setdefault(key, []).append(f"b{r['batch']} h{r['head']} r{r['row']}")
    parts = []
    for (what, of_call), where in groups.items():
        shown = ", ".join(where[:6]) + (" …" if len(where) > 6 else "")
        parts.append(t(f"probe.replay.got.{what}", lang, call=of_call, rows=shown))
    return "; ".join(parts)


def run(folder: str, seed: int, lang: str, as_json: bool) -> int:
    result = replay(folder, seed)
    if as_json:
        from maskattn_tui import strict_json

        sys.stdout.write(strict_json.dumps(result) + "\n")
    else:
        sys.stdout.write("\n".join(lines(result, lang)) + "\n")
    return 1 if result["wrong_rows"] else 0
