"""`doctor DIR`: every Hugging Face attention call checked against its own
intent, as capture recorded it (hf_intent.py): the intent from the layer's
type, config and mask builder (intent/from_call.py), its table over the
call's absolute positions (intent/table.py), and the table that really ran
— the SDPA call inside the layer when there is one, else the layer's mask —
compared cell by cell. The table a call saw is its mask over the key slots
the cache filled: a slot the cache left unused is neither PAD nor a key,
and seeing one is an error like any other differing cell. Needs numpy."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from maskattn_tui.intent.from_call import layer_intent, padding_at
from maskattn_tui.intent.table import LayerIntent, intended_table

#: differing cells kept per finding (the count is always whole)
CELLS = 64


def positions(encoded, length: int | None = None) -> np.ndarray | None:
    """[[0, 3], [-1, 2]] -> [0, 1, 2, -1, -1] (the runs hf_intent.py writes);
    None for anything else (a manifest edited by hand), or when the runs do
    not add up to `length`."""
    if not isinstance(encoded, list) or not all(
            isinstance(run, list) and len(run) == 2 and all(type(v) is int for v in run) and run[1] >= 0
            for run in encoded):
        return None
    if length is not None and sum(run[1] for run in encoded) != length:
        return None
    parts = [np.full(count, -1) if first < 0 else np.arange(first, first + count) for first, count in encoded]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)


@dataclass
class Checked:
    """One layer call against its intent."""

    call: dict
    intent: LayerIntent
    ran: list[int]  # the calls whose tables were compared (the SDPA inside, or the layer itself)
    cells: list[dict] = field(default_factory=list)
    count: int = 0  # differing cells over every batch row and head
    unused_seen: int = 0  # of which: unused cache slots made visible
    empty_rows_meant: bool = True  # every query row with no visible key is one the intent leaves empty too


@dataclass
class Report:
    checked: list[Checked] = field(default_factory=list)
    unknown: list[tuple[dict, str]] = field(default_factory=list)  # (call, reason key)

    def covered(self) -> set[int]:
        """Calls whose reading the intent check replaces: the layer calls
        checked and the calls that ran inside them."""
        return {c.call["call"] for c in self.checked} | {r for c in self.checked for r in c.ran}

    def matched(self) -> set[int]:
        return {n for c in self.checked if c.count == 0 for n in (c.call["call"], *c.ran)}

    def meant(self) -> frozenset:
        """Calls that match their intent, empty rows included."""
        return frozenset(n for c in self.checked if c.count == 0 and c.empty_rows_meant
                         for n in (c.call["call"], *c.ran))


class _Tables:
    """Stored tables, intended tables and their differences, each computed
    once: the layers of a forward share their masks and intents."""

    def __init__(self, folder: str) -> None:
        self.folder, self._cache = folder, {}
        self._wants: dict = {}
        self._diffs: dict = {}

    def want(self, key: tuple, intent: LayerIntent, q_pos, k_pos, valid, left: int) -> np.ndarray:
        if key not in self._wants:
            self._wants[key] = intended_table(intent, q_pos, k_pos, key_valid=valid, left_padding=left)
        return self._wants[key]

    def diff(self, digest: str, want_key: tuple, want: np.ndarray):
        """(table, differing rows, differing slots, an empty row the intent fills)."""
        key = (digest, want_key)
        if key not in self._diffs:
            table = self.visible(digest)
            rows, keys = want.shape
            if table.shape[0] == rows and table.shape[1] < keys:
                # transformers gives SDPA the first slots only (a static cache's prefill with is_causal):
                # the slots left out are seen by no query
                table = np.concatenate([table, np.zeros((rows, keys - table.shape[1]), dtype=bool)], axis=1)
            if table.shape != want.shape:
                self._diffs[key] = (table, None, None, True)
            else:
                r, k = np.nonzero(table != want)
                self._diffs[key] = (table, r, k, bool(np.any(~table.any(axis=1) & want.any(axis=1))))
        return self._diffs[key]

    def visible(self, digest: str) -> np.ndarray:
        """A stored table as True = visible (bool as is, additive > its block level)."""
        if digest not in self._cache:
            from maskattn_tui.doctor.representation import Reading, classify

            table = _load(self.folder, digest)
            self._cache[digest] = table if table.dtype == np.bool_ else \
                Reading(table, classify(table)).band(0, table.shape[0])
        return self._cache[digest]


def _slices(ran: dict, tables: _Tables, rows: int, keys: int):
    """(batch, head, table hash) of a call, or None when no table is known."""
    mask = ran.get("mask")
    if mask is None:
        if ran.get("kind") == "hf" and ran.get("implementation") == "eager":
            digest = f"all:{rows}x{keys}"  # eager adds nothing: every key visible
            tables._cache[digest] = np.ones((rows, keys), dtype=bool)
            return [(0, 0, digest)]
        return None
    return [(b, h, d) for b, row in enumerate(mask.get("hashes", [])) for h, d in enumerate(row)]


def _load(folder: str, digest: str) -> np.ndarray:
    """A table capture stored, through the folder's one reader (a regular
    file inside the folder, its bytes hashing to its name, never pickled);
    one line when it is refused."""
    from maskattn_tui.capture.table_files import read_table

    return np.asarray(read_table(folder, "masks", digest))


def _padding(call: dict, by_number: dict, tables: _Tables) -> np.ndarray | None:
    """The 2-D attention_mask the call's mask builder was given ([B, L], True
    = real), rebuilt from the runs of real tokens its record keeps; None when
    the record has none (or cut rows: a row past those kept is not guessed)."""
    number = call["intent"].get("builder_call")
    builder = by_number.get(number) if type(number) is int else None
    padding = (builder or {}).get("padding_mask")
    if not isinstance(padding, dict) or padding.get("rows_left_out"):
        return None
    shape, runs = padding.get("shape"), padding.get("runs")
    if not (isinstance(shape, list) and len(shape) == 2 and all(type(n) is int and 0 <= n <= 1 << 24 for n in shape)
            and isinstance(runs, list) and len(runs) == shape[0]):
        return None
    key = ("padding", number)
    if key not in tables._cache:  # each decode step's builder has one; its layers share it
        table = np.zeros(shape, dtype=bool)
        for row, pairs in zip(table, runs):
            for pair in pairs if isinstance(pairs, list) else ():
                if isinstance(pair, list) and len(pair) == 2 and all(type(n) is int for n in pair):
                    row[max(0, pair[0]):max(0, pair[1])] = True
        tables._cache[key] = table
    return tables._cache[key]


def _key_valid(padding: np.ndarray | None, b: int, k_pos: np.ndarray):
    if padding is None:
        return None, 0
    return padding_at(padding[min(b, padding.shape[0] - 1)], k_pos)


def _seen_keys(table: np.ndarray, keys: int) -> np.ndarray:
    """Per key slot: seen by some query (slots beyond a shorter table: not)."""
    seen = np.zeros(keys, dtype=bool)
    seen[:min(keys, table.shape[1])] = table.any(axis=0)[:keys]
    return seen


def check(folder: str, calls: list[dict]) -> Report:
    report, tables = Report(), _Tables(folder)
    by_number = {c["call"]: c for c in calls}
    inner_of: dict[int, list[dict]] = {}
    for c in calls:
        if c.get("kind") == "sdpa" and c.get("within") is not None:
            inner_of.setdefault(c["within"], []).append(c)
    for call in calls:
        record = call.get("intent") if call.get("kind") == "hf" else None
        if not isinstance(record, dict):
            continue
        intent, why = layer_intent(record)
        k_pos = positions(record.get("k_pos"), call["k_len"])
        q_pos = positions(record.get("q_pos"), call["q_len"])
        if intent is not None and intent.kind == "cross" and q_pos is None:
            q_pos = np.arange(call["q_len"])
        if intent is None or k_pos is None or q_pos is None:
            report.unknown.append((call, why or "positions"))
            continue
        ran = inner_of.get(call["call"]) or [call]
        padding = _padding(call, by_number, tables)
        result = Checked(call, intent, [r["call"] for r in ran if r is not call])
        known = False
        for inner in ran:
            slices = _slices(inner, tables, call["q_len"], call["k_len"])
            if slices is None:
                continue
            known = True
            batches = max(len(inner["mask"]["hashes"]) if inner.get("mask") else 1,
                          padding.shape[0] if padding is not None else 1)
            by_batch: dict[int, list] = {}
            for b, h, digest in slices:
                by_batch.setdefault(b, []).append((h, digest))
            infer = padding is None and record.get("builder_call") is None
            for b in range(batches):
                valid, left = _key_valid(padding, b, k_pos)
                for h, digest in by_batch[min(b, len(by_batch) - 1)]:
                    if infer:  # a 4-D mask passed in, no 2-D attention_mask seen: a key no query sees is PAD
                        valid = _seen_keys(tables.visible(digest), k_pos.size)
                        left = int(np.argmax(valid)) if valid.any() else valid.size
                    key = (intent, str(record["q_pos"]), str(record["k_pos"]),
                           None if valid is None else valid.tobytes(), left)
                    want = tables.want(key, intent, q_pos, k_pos, valid, left)
                    _compare(result, inner, b, h, tables.diff(digest, key, want), want, q_pos, k_pos)
        # (not when the PAD keys were read from the table: whether a key it no longer holds was PAD is unknown)
        if known and intent.kind in ("causal", "sliding", "chunked") and not (
                padding is None and record.get("builder_call") is None):
            _absent(result, tables, call, intent, q_pos, k_pos, padding, str(record["q_pos"]) + str(record["k_pos"]))
        if known:
            report.checked.append(result)
        else:
            report.unknown.append((call, "no_table"))
    return report


def _absent(result: Checked, tables: _Tables, call: dict, intent: LayerIntent, q_pos: np.ndarray,
            k_pos: np.ndarray, padding: np.ndarray | None, where: str) -> None:
    """Keys a query is meant to see that the cache no longer holds (a
    sliding cache that keeps one key too few): no table shows them, so the
    intent is asked for every earlier position the call's keys leave out."""
    last = int(q_pos.max()) if q_pos.size else -1
    held = np.zeros(last + 1, dtype=bool)
    inside = k_pos[(k_pos >= 0) & (k_pos <= last)]
    held[inside] = True
    missing = np.flatnonzero(~held)
    if not missing.size:
        return
    for b in range(padding.shape[0] if padding is not None else 1):
        valid, left = _key_valid(padding, b, missing)
        key = ("absent", intent, where, None if valid is None else valid.tobytes(), left)
        want = tables.want(key, intent, q_pos, missing, valid, left)
        rows, cols = np.nonzero(want)
        result.count += rows.size
        for r, c in zip(rows[:max(CELLS - len(result.cells), 0)], cols):
            result.cells.append({"call": call["call"], "batch": b, "head": None, "row": int(r), "slot": None,
                                 "q": int(q_pos[r]), "k": int(missing[c]), "seen": False, "meant": True})


def _compare(result: Checked, ran: dict, b: int, h: int, diff: tuple, want: np.ndarray,
             q_pos: np.ndarray, k_pos: np.ndarray) -> None:
    table, rows, slots, unmeant_empty = diff
    if rows is None:
        result.count += want.size
        result.cells.append({"call": ran["call"], "batch": b, "head": h, "shape": list(table.shape)})
        return
    if unmeant_empty:
        result.empty_rows_meant = False
    result.count += rows.size
    result.unused_seen += int(np.count_nonzero(k_pos[slots] < 0))
    for r, s in zip(rows[:max(CELLS - len(result.cells), 0)], slots):
        result.cells.append({"call": ran["call"], "batch": b, "head": h, "row": int(r), "slot": int(s),
                             "q": int(q_pos[r]), "k": int(k_pos[s]) if k_pos[s] >= 0 else None,
                             "seen": bool(table[r, s]), "meant": bool(want[r, s])})


# --- findings ---------------------------------------------------------------

def _intent_params(intent: LayerIntent) -> dict:
    return {"kind": intent.kind, "window": intent.window, "chunk": intent.chunk, "source": intent.source}


def findings(report: Report) -> list[dict]:
    """intent-differs (error: by site and layer, with the cells), intent-matches
    (info: how many calls matched which intents), intent-unknown (info)."""
    from maskattn_tui.capture.summary import sites_text

    out: list[dict] = []
    groups: dict[tuple, list[Checked]] = {}
    for checked in report.checked:
        if checked.count:  # one finding per place (layers folded) and intent
            key = (sites_text([checked.call]).replace(str(checked.call.get("layer")), "#"), checked.intent)
            groups.setdefault(key, []).append(checked)
    for (_, intent), group in groups.items():
        cells = [{**cell, "site": c.call.get("site"), "layer": c.call.get("layer"),
                  "generate_step": c.call.get("generate_step"), "forward": c.call.get("forward")}
                 for c in group for cell in c.cells][:CELLS]
        out.append({"code": "intent-differs", "level": "error", "calls": [c.call["call"] for c in group],
                    "params": {"site": sites_text([c.call for c in group]),
                               "layers": sorted({c.call["layer"] for c in group if c.call.get("layer") is not None}),
                               **_intent_params(intent),
                               "steps": sorted({c.call["generate_step"] for c in group
                                                if c.call.get("generate_step") is not None}),
                               "forwards": sorted({c.call["forward"] for c in group
                                                   if c.call.get("forward") is not None}),
                               "count": sum(c.count for c in group),
                               "unused": sum(c.unused_seen for c in group)},
                    "cells": cells})
    good = [c for c in report.checked if not c.count]
    if good:
        kinds: dict[LayerIntent, int] = {}
        for c in good:
            bare = LayerIntent(c.intent.kind, c.intent.window, c.intent.chunk)
            kinds[bare] = kinds.get(bare, 0) + 1
        out.append({"code": "intent-matches", "level": "info", "calls": [c.call["call"] for c in good],
                    "params": {"intents": [{"kind": k.kind, "window": k.window, "chunk": k.chunk, "calls": n}
                                           for k, n in kinds.items()]}})
    reasons: dict[tuple, list[int]] = {}
    for call, why in report.unknown:
        overlays = call["intent"].get("overlays") if why == "overlay" else None
        what = ", ".join(o for o in overlays if isinstance(o, str)) if isinstance(overlays, list) else ""
        reasons.setdefault((why, what), []).append(call["call"])
    for (why, what), numbers in reasons.items():
        out.append({"code": "intent-unknown", "level": "info", "calls": numbers,
                    "params": {"reason": why, "overlays": what}})
    return out


def intent_text(params: dict, lang: str) -> str:
    from maskattn_tui.i18n import t

    return t(f"capture.intent.kind.{params['kind']}", lang, window=params.get("window"), chunk=params.get("chunk"))


def _cells_text(cells: list[dict], lang: str, limit: int = 6) -> str:
    from maskattn_tui.i18n import t

    batches = len({c.get("batch") for c in cells}) > 1 or any(c.get("batch") for c in cells)
    places = len({(c.get("layer"), c.get("generate_step"), c.get("forward")) for c in cells}) > 1
    parts = []
    for cell in cells[:limit]:
        if "row" not in cell:
            parts.append(t("capture.intent.cell.shape", lang, shape="x".join(map(str, cell["shape"]))))
            continue
        key = "seen" if cell["seen"] else "hidden"
        if cell["k"] is None:
            key = "unused"
        elif cell.get("slot") is None:
            key = "absent"
        where = "" if not places else t("capture.intent.cell.where", lang, layer=cell.get("layer"),
                                        step=cell["generate_step"]) if cell.get("generate_step") is not None else \
            t("capture.intent.cell.where_forward", lang, layer=cell.get("layer"), forward=cell.get("forward"))
        parts.append(where
                     + (t("capture.intent.cell.batch", lang, b=cell["batch"]) if batches else "")
                     + t(f"capture.intent.cell.{key}", lang, q=cell["q"], k=cell["k"], slot=cell["slot"]))
    more = len(cells) - limit
    tail = t("capture.intent.cell.more", lang, more=more) if more > 0 else ""
    return t("doctor.report.join", lang).join(parts) + tail


def message(finding: dict, calls_text: str, lang: str) -> str:
    """The text of an intent-* finding."""
    from maskattn_tui.capture.summary import ranges
    from maskattn_tui.i18n import t

    p, code = finding["params"], finding["code"]
    numbers = finding["calls"]
    if code != "intent-differs" and len(numbers) > 12:  # a whole run's layer calls: first and last (JSON: all)
        calls_text = f"#{min(numbers)}…#{max(numbers)}"
    if code == "intent-differs":
        steps = p["steps"]
        if steps:
            kind = "prefill" if steps == [0] else "decode" if 0 not in steps else "both"
            when = t(f"capture.steps.{kind}", lang, steps=ranges(steps))
        else:
            when = t("capture.steps.forwards", lang, forwards=ranges(p["forwards"]) or "-")
        key = "capture.finding.intent-differs" + (".one" if p["count"] == 1 else "")
        return t(key, lang, calls=calls_text, site=p["site"] or "-",
                 layer=t("capture.intent.layer" + (".one" if len(p["layers"]) == 1 else ""), lang,
                         layer=ranges(p["layers"]) or "-"), when=when, intent=intent_text(p, lang),
                 source=p["source"], count=p["count"], cells=_cells_text(finding.get("cells", []), lang))
    if code == "intent-matches":
        intents = t("capture.intent.list_join", lang).join(
            f"{intent_text(i, lang)} ×{i['calls']}" for i in p["intents"])
        return t("capture.finding.intent-matches" + (".one" if len(finding["calls"]) == 1 else ""), lang,
                 calls=calls_text, count=len(finding["calls"]),
                 intents=intents)
    return t("capture.finding.intent-unknown", lang, calls=calls_text,
             reason=t(f"capture.intent.unknown.{p['reason']}", lang, overlays=p.get("overlays") or "-"))
