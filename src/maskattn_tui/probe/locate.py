"""Where a broken invariance starts: its two runs made again, each under
this project's capture (one folder each) with forward hooks on the
attention layers, then
- the first attention layer (module path, in layer order) whose output
  moves at a protected position, and the first position that moves there;
- the first captured call of the second run whose mask row for a protected
  position lets through other keys than the first run's row for the same
  position at the same module — rows and key columns turned into positions
  of the probed sequence through the runs' own description (a cache's keys
  are the positions fed so far; a sliding one keeps the latest), and a
  key that is PAD or another sequence's counted as such;
- when every call agrees (the leak is in the table both runs share, or in a
  kernel), the call of the first moved layer at the step of the first moved
  position;
- the findings across calls that capture's doctor makes of each run."""

from __future__ import annotations

import os

import torch

from maskattn_tui.probe.execute import Compared, LayerHooks, execute

#: a visible key that is not a position of the probed sequence (PAD, another row's token)
OTHER = "other"


def locate(io, case, rtol: float, folder: str) -> dict:
    from maskattn_tui.capture.session import capture

    hooks, dirs = {}, {}
    for side, run in (("a", case.a), ("b", case.b)):
        dirs[side] = os.path.join(folder, side)
        with capture(dirs[side]), LayerHooks(io.model) as kept:
            execute(io, run, kept)
        hooks[side] = kept
    out: dict = {"runs": dirs, "layer": None, "call": None, "same_masks": False}
    for name, _ in hooks["a"].modules:
        a, b = hooks["a"].picked(name, case.a.slots), hooks["b"].picked(name, case.b.slots)
        if a is None or b is None or a.shape != b.shape:
            continue
        moved = Compared(a, b, case.a.positions, rtol)
        if not moved.held:
            finite = moved.max_diff if moved.max_diff < float("inf") else None  # None: NaN on one side (JSON)
            out["layer"] = {"module": name, "position": moved.first, "max_diff": finite,
                            "tolerance": moved.tolerance}
            break
    rows = {side: _rows(dirs[side], run) for side, run in (("a", case.a), ("b", case.b))}
    out["call"] = _first_differing(rows["a"], rows["b"], case.b)
    if out["call"] is None:
        out["same_masks"] = True
        if out["layer"] is not None:
            out["call"] = _call_at(rows["b"], case.b, out["layer"]["module"], out["layer"]["position"])
    out["findings"] = {side: _findings(dirs[side]) for side in dirs}
    return out


def _visible(folder: str, digest: str, users: list[dict]) -> torch.Tensor:
    """The cells a softmax sees in a captured table: bool True, or an additive
    value well above its dtype's minimum (0 / -inf, or 0 / finfo.min as HF
    eager adds). Read through the capture folder's one reader (no pickle)."""
    from maskattn_tui.capture.table_files import read_table_of

    table = torch.tensor(read_table_of(folder, digest, users)[0])  # a copy: the array may be read-only
    if table.dtype == torch.bool:
        return table
    return torch.isfinite(table) & (table > torch.finfo(table.dtype).min / 2)


def _keys(run, step: int, width: int) -> list | None:
    """The probed row's position for each key column of step `step`'s mask."""
    fed = [q for s in run.steps[:step + 1] for q in s.labels[0]] if run.cache else list(run.steps[step].labels[0])
    if width == len(fed):
        return fed
    if width > len(fed) and run.cache == "static":
        return fed + [None] * (width - len(fed))  # the static cache's slots not filled yet
    if width < len(fed) and run.cache == "dynamic":
        return fed[-width:]  # a sliding layer keeps the latest keys
    return None  # columns this description cannot place (a static sliding cache's rolled slots)


def _rows(folder: str, run) -> list[dict]:
    """Each primary call's mask rows at protected positions, in call order:
    {call (the one whose table it is), site, step, position, seen (frozenset), hash}."""
    from maskattn_tui.capture import folder as capture_folder
    from maskattn_tui.capture.findings import primary

    document = capture_folder.load(folder)
    inner = {c["within"]: c for c in document["calls"] if c.get("within") is not None and c.get("mask")}
    out, tables = [], {}
    for call in primary(document["calls"]):
        step = call.get("forward")
        if step is None or not 0 <= step < len(run.steps):
            continue
        queries = run.steps[step].labels[0]
        # the table the kernel received: an HF layer's inner SDPA call's (a custom attention
        # function may change the mask it was given), else the layer's own
        for source in (inner.get(call["call"]), call):
            found = _table(folder, source, tables, len(queries)) if source is not None else None
            if found is not None:
                break
        if found is None:
            continue
        digest, table = found
        keys = _keys(run, step, table.shape[1])
        if keys is None:
            continue
        for r, q in enumerate(queries):
            if q is None:
                continue
            seen = frozenset(OTHER if keys[c] is None else keys[c] for c in table[r].nonzero().flatten().tolist())
            out.append({"call": source["call"], "site": call.get("site"), "step": step, "position": q,
                        "seen": seen, "hash": digest})
    return out


def _table(folder: str, call: dict, tables: dict, rows: int):
    """(hash, visible cells) of the call's batch row 0, head 0 (the probed
    sequence's), when it has one row per query."""

    hashes = (call.get("mask") or {}).get("hashes") or []
    if not hashes or not hashes[0]:
        return None
    digest = hashes[0][0]
    if digest not in tables:
        tables[digest] = _visible(folder, digest, [call])
    return (digest, tables[digest]) if tables[digest].shape[0] == rows else None


def _first_differing(rows_a: list[dict], rows_b: list[dict], run_b) -> dict | None:
    first_a = {}
    for row in rows_a:
        first_a.setdefault((row["site"], row["position"]), row)
    for row in rows_b:
        other = first_a.get((row["site"], row["position"]))
        if other is None or other["seen"] == row["seen"]:
            continue
        differing = sorted(r["position"] for r in rows_b if r["call"] == row["call"] and
                           (row["site"], r["position"]) in first_a and
                           first_a[(row["site"], r["position"])]["seen"] != r["seen"])
        return {**_named(row, run_b), "positions": differing, "a_call": other["call"], "a_hash": other["hash"],
                "only_b": _listed(row["seen"] - other["seen"]), "only_a": _listed(other["seen"] - row["seen"])}
    return None


def _call_at(rows_b: list[dict], run_b, module: str, position: int) -> dict | None:
    for row in rows_b:
        if row["site"] == module and row["position"] == position:
            return {**_named(row, run_b), "positions": [position]}
    return None


def _named(row: dict, run) -> dict:
    return {"call": row["call"], "site": row["site"], "step": run.steps[row["step"]].name, "hash": row["hash"]}


def _listed(keys: frozenset) -> list:
    """Key positions in order, then OTHER when a PAD or another row's key is among them."""
    return sorted(k for k in keys if k != OTHER) + ([OTHER] if OTHER in keys else [])


def _findings(folder: str) -> list[dict]:
    """capture's findings across the run's calls (errors and warnings), each
    HF layer call checked against its own intent as `doctor DIR` checks it
    (a leak by its intent: intent-differs, with the cells)."""
    from maskattn_tui.capture import folder as capture_folder
    from maskattn_tui.capture.against_intent import findings
    from maskattn_tui.capture.doctor import judge
    from maskattn_tui.capture.findings import cross_call

    calls = capture_folder.load(folder)["calls"]
    readings, report, _ = judge(folder, calls, capture_folder.Notes())
    found = cross_call(calls, {d: r[2] for d, r in readings.items()}, frozenset(report.covered()),
                       report.meant()) + findings(report)
    return [f for f in found if f["level"] in ("error", "warning")]


def reading(folder: str, digest: str, lang: str) -> str:
    """The doctor's one-line reading of a captured mask and the calls that used it."""
    from maskattn_tui.capture import folder as capture_folder
    from maskattn_tui.capture.doctor import mask_line
    from maskattn_tui.capture.findings import attention_calls
    from maskattn_tui.capture.summary import mask_users
    from maskattn_tui.capture.table_files import read_table_of
    from maskattn_tui.doctor import diagnose

    users = mask_users(attention_calls(capture_folder.load(folder)["calls"])).get(digest)
    if not users:
        return "-"
    mask, info = read_table_of(folder, digest, users)
    polarity = "attend" if (users[0].get("mask") or {}).get("polarity") == "attend" else None  # as doctor DIR reads it
    return mask_line(digest, diagnose(mask, polarity, info), users, lang)
