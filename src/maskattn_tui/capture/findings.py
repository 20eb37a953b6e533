"""Findings across the calls of a capture (each distinct mask's own reading
is the doctor's): a decode step whose is_causal=True hides the cache,
layers of one forward given different masks where they should share one,
query rows with no visible key, a BlockMask whose lengths or block lists
do not fit the call, and a float mask whose minimum overflowed to -inf.
Plain data in, plain data out: CallRecords in, CaptureFindings
{code, level, calls, params} out (typed dicts: they are JSON as they stand)."""

from __future__ import annotations

import re
from typing import TypedDict

from maskattn_tui.capture.folder import mask_hashes
from maskattn_tui.capture.records import ATTENTION, CallRecord


def attention_calls(calls: list[CallRecord]) -> list[CallRecord]:
    return [c for c in calls if c.get("kind") in ATTENTION]


def primary(calls: list[CallRecord]) -> list[CallRecord]:
    """The calls that stand for one attention each: an SDPA call inside an
    HF layer's attention function is that layer's call, unless the layer
    passed no mask (then the SDPA call shows the table it used)."""
    by_index = {c["call"]: c for c in calls}
    enclosing = {c.get("within") for c in calls}  # (a set: a hostile manifest's 10^5 calls stay linear)
    out = []
    for call in attention_calls(calls):
        parent = by_index.get(call.get("within")) if call.get("within") is not None else None
        if parent is not None and parent.get("mask") is not None:
            continue
        if call["kind"] == "hf" and call.get("mask") is None and call["call"] in enclosing:
            continue
        out.append(call)
    return out


class CaptureFinding(TypedDict):
    """A finding over a capture's calls (the doctor's over one table is a
    doctor.findings.Finding): which calls it names, and its message's params."""

    code: str
    level: str
    calls: list[int]
    params: dict


def _finding(code: str, level: str, calls: list[int], **params) -> CaptureFinding:
    return {"code": code, "level": level, "calls": calls, "params": params}


def cross_call(calls: list[CallRecord], readings: dict, covered: frozenset = frozenset(),
               meant: frozenset = frozenset()) -> list[CaptureFinding]:
    """`readings`: hash -> the doctor's Diagnosis of that mask. `covered`:
    calls checked against their own intent (against_intent.py), which the
    table-only findings leave alone; `meant`: those whose empty rows their
    intent leaves empty too."""
    shown = primary(calls)
    out: list[CaptureFinding] = []
    out += _causal_decode([c for c in attention_calls(calls) if c["call"] not in covered])
    out += _layers_differ([c for c in shown if c["call"] not in covered])
    out += _empty_rows(shown, readings, meant)
    out += _block_masks(shown)
    out += _overflow(shown)
    out += _window_in_cache(calls)
    out += _packed(calls, readings)
    return out


def _packed(calls: list[CallRecord], readings: dict) -> list[CaptureFinding]:
    """position_ids that restart inside a row (documents packed into it)
    while that forward's masks let a document see the one before it: plain
    causal across the restart (transformers 5.24 builds the block-diagonal
    mask from position_ids only without a cache)."""
    out = []
    for forward in (c for c in calls if c.get("kind") == "forward"):
        lengths = [row for row in forward.get("documents") or [] if len(row) > 1]
        if not lengths:
            continue
        used = [c for c in primary(calls) if c.get("pid") == forward.get("pid")
                and c.get("forward") == forward.get("forward")]
        leaky = [c["call"] for c in used if any(
            readings.get(h) is not None and readings[h].documents is None for h in mask_hashes(c))]
        if leaky:
            out.append(_finding("packed-leak", "warning", leaky, forward=forward.get("forward"),
                                lengths=",".join(map(str, lengths[0]))))
    return out


def _window_in_cache(calls: list[CallRecord]) -> list[CaptureFinding]:
    """Sliding-window decode: transformers crops the cache to the window and
    passes an all-visible mask; the mask builder's kv_offset says which
    positions the keys are. Said once per window size (information)."""
    built = {(c.get("pid"), c.get("forward"), c.get("k_len")): c for c in calls if c.get("kind") == "hf-mask"}
    found: dict[int, dict] = {}
    for call in calls:
        window = call.get("sliding_window") if call.get("kind") == "hf" else None
        builder = built.get((call.get("pid"), call.get("forward"), call.get("k_len")))
        if window and builder and (builder.get("kv_offset") or 0) > 0 and call["k_len"] <= window:
            entry = found.setdefault(window, _finding("window-in-cache", "info", [], w=window, k=call["k_len"],
                                                      first=builder["kv_offset"],
                                                      last=builder["kv_offset"] + call["k_len"] - 1))
            entry["calls"].append(call["call"])
    return list(found.values())


def _causal_decode(calls: list[CallRecord]) -> list[CaptureFinding]:
    bad = [c for c in calls if c["kind"] in ("sdpa", "mha") and c.get("is_causal")
           and (c.get("mask") or {}).get("from") == "is_causal" and c["q_len"] < c["k_len"]]
    if not bad:
        return []
    first = bad[0]
    return [_finding("decode-is-causal", "error", [c["call"] for c in bad], q=first["q_len"], k=first["k_len"],
                     past=first["k_len"] - first["q_len"])]


_LAYER_NUMBER = re.compile(r"(^|\.)\d+(?=\.|$)")


def _group_key(call: CallRecord) -> tuple:
    """Calls that should share a mask: one forward, one kind and shape, one
    layer type, and the same module path but for the layer number (a
    decoder's self- and cross-attention are apart even at equal lengths)."""
    site = _LAYER_NUMBER.sub(r"\1#", call.get("site") or "")
    return (call.get("pid"), call.get("forward"), call["kind"], call.get("layer_type"),
            call.get("sliding_window"), call["q_len"], call["k_len"], site)


def _layers_differ(calls: list[CallRecord]) -> list[CaptureFinding]:
    """Layers of one forward of the same kind, shape and layer type (sliding
    and full layers apart) whose masks differ."""
    groups: dict[tuple, list[CallRecord]] = {}
    for call in calls:
        if call.get("forward") is not None and call.get("site") is not None:
            groups.setdefault(_group_key(call), []).append(call)
    out = []
    for group in groups.values():
        tables = {tuple(mask_hashes(c)) for c in group}
        sites = {c["site"] for c in group}
        if len(tables) > 1 and len(sites) > 1:
            out.append(_finding("layers-differ", "warning", [c["call"] for c in group],
                                forward=group[0]["forward"], masks=len(tables), sites=len(sites)))
    return out


def _empty_rows(calls: list[CallRecord], readings: dict, meant: frozenset = frozenset()) -> list[CaptureFinding]:
    out = []
    users: dict[str, list[int]] = {}  # once, not a pass over every call per mask
    for call in calls:
        for digest in dict.fromkeys(mask_hashes(call)):
            users.setdefault(digest, []).append(call["call"])
    for digest, diag in readings.items():
        if diag is None or not diag.empty_row_count:
            continue
        used = users.get(digest, [])
        if used:
            rows = ", ".join(map(str, diag.empty_rows))
            # every call that used it left those rows empty by its own intent (PAD queries): said, not warned
            code, level = ("empty-rows-meant", "info") if set(used) <= meant else ("empty-rows", "warning")
            out.append(_finding(code, level, used, mask=digest, rows=rows, count=diag.empty_row_count))
    return out


def _block_masks(calls: list[CallRecord]) -> list[CaptureFinding]:
    out = []
    for call in calls:
        block = call.get("block_mask")
        if call["kind"] != "flex" or not block:
            continue
        q, k = block["seq_lengths"]
        if (q, k) != (call["q_len"], call["k_len"]):
            out.append(_finding("blockmask-lengths", "error", [call["call"]], bq=q, bk=k, q=call["q_len"],
                                k=call["k_len"]))
        bq, bk = block["block_size"]
        made = (block["q_blocks"], block.get("kv_index_blocks"))
        if block.get("kv_index_blocks") is not None and made != (-(-q // bq), -(-k // bk)):
            # create_block_mask makes ceil(length / BLOCK_SIZE) blocks a side; these lists were made for others
            out.append(_finding("blockmask-block-size", "warning", [call["call"]], nq=made[0], nk=made[1],
                                gq=-(-q // made[0]), gk=-(-k // max(made[1], 1)), block=f"{bq}x{bk}"))
        lost, gained = block.get("lists_lost") or 0, block.get("lists_gained") or 0
        if lost or gained:
            out.append(_finding("blockmask-lists", "error", [call["call"]], lost=lost, gained=gained,
                                block="x".join(map(str, block["block_size"]))))
    return _merge(out)


def _overflow(calls: list[CallRecord]) -> list[CaptureFinding]:
    """A float mask holding -inf beside values near its dtype's minimum: two
    minimums added (padding + causal) or a cast to a narrower dtype
    overflowed; a row hidden only by -inf is NaN."""
    import math

    limits = {"float16": 65504.0, "bfloat16": 3.3895e38, "float32": 3.4028e38, "float64": 1.7976e308}
    bad = []
    for call in calls:
        mask = call.get("mask") or {}
        low, dtype = mask.get("min"), mask.get("dtype")
        if mask.get("neg_inf") and low is not None and dtype in limits and not math.isinf(low) \
                and low <= -0.5 * limits[dtype]:
            bad.append(call["call"])
    return [_finding("min-overflow", "warning", bad)] if bad else []


def _merge(findings: list[CaptureFinding]) -> list[CaptureFinding]:
    """Findings of one code and the same parameters: one, listing every call."""
    merged: dict[tuple, CaptureFinding] = {}
    for f in findings:
        key = (f["code"], tuple(sorted(f["params"].items())))
        if key in merged:
            merged[key]["calls"] += f["calls"]
        else:
            merged[key] = f
    return list(merged.values())
