"""`maskattn-tui doctor DIR` for a capture folder: one line per distinct
mask (the doctor's reading of its table, via diagnose()), the calls that
used it, and the findings across calls (findings.py); `--json`;
`--expect` over every call's slices (or --call N / --site PATTERN);
`--strict` exits 1 when a finding is an error. Needs numpy, not torch."""

from __future__ import annotations

import fnmatch
import sys

from maskattn_tui.capture import against_intent, folder as capture_folder
from maskattn_tui.capture.findings import attention_calls, cross_call, primary
from maskattn_tui.capture.summary import calls_text, mask_users, sites_text, steps_text
from maskattn_tui.capture.table_files import CallsNote, read_table_of
from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.printable import escaped

SCHEMA = "maskattn-capture-doctor/1"


def _polarity(call: dict) -> str | None:
    """The polarity the API gives the table: SDPA and flex tables are
    True = attend; float tables are additive (the doctor decides)."""
    return "attend" if (call.get("mask") or {}).get("polarity") == "attend" else None


def read_masks(folder: str, calls: list[dict], notes: list) -> dict:
    """hash -> (mask array, MaskInfo, Diagnosis) for each distinct table
    that can be read; each one refused is a note naming its calls. None
    readable of some: the first reason (one line, exit 2)."""
    from maskattn_tui.doctor import diagnose

    out, refused = {}, []
    for digest, users in mask_users(primary(calls)).items():
        try:
            mask, info = read_table_of(folder, digest, users)
        except MaskattnError as problem:
            refused.append(CallsNote(users, problem))
            continue
        out[digest] = (mask, info, diagnose(mask, _polarity(users[0]), info))
    if refused and not out:
        raise refused[0]
    for note in refused:
        notes.add(note)
    return out


def finding_text(finding: dict, lang: str) -> str:
    calls = calls_text([{"call": c} for c in finding["calls"]])
    if finding["code"].startswith("intent-"):
        return against_intent.message(finding, calls, lang)
    return t(f"capture.finding.{finding['code']}", lang, **{**finding["params"], "calls": calls})


def verdicts(calls: list[dict], report) -> dict:
    """hash -> "matches" / "differs" for each distinct mask whose every call
    was checked against its own intent (its table-only findings then give
    way to that check)."""
    covered, matched = report.covered(), report.matched()
    out = {}
    for digest, users in mask_users(primary(calls)).items():
        numbers = {c["call"] for c in users}
        if numbers <= covered:
            out[digest] = "matches" if numbers <= matched else "differs"
    return out


def run(args, lang: str) -> int:
    folder = args.file
    document = capture_folder.load(folder)
    calls = document["calls"]
    if args.expect:
        return _run_expect(folder, document, args, lang)
    for dest, option in (("call", "--call"), ("site", "--site")):
        if getattr(args, dest, None) is not None:
            raise MaskattnError("doctor_needs_expect", option=option)
    readings, report, judged = judge(folder, calls, document["notes"])
    found = cross_call(calls, {d: r[2] for d, r in readings.items()}, frozenset(report.covered()),
                       report.meant()) + against_intent.findings(report)
    if args.json:
        sys.stdout.write(_json(folder, document, readings, found, lang, judged) + "\n")
    else:
        sys.stdout.write("\n".join(_human(folder, document, readings, found, lang, judged)) + "\n")
    # a mask that matches its intent: its table-only errors are readings the intent settled
    failed = any(f["level"] == "error" for f in found) or \
        any(f.level == "error" for d, r in readings.items() if judged.get(d) != "matches" for f in r[2].findings) or \
        bool(document["notes"])  # (a part left out was not checked: not a pass in CI)
    return 1 if getattr(args, "strict", False) and failed else 0


def judge(folder: str, calls: list[dict], notes) -> tuple[dict, object, dict]:
    """Each distinct mask read (a refused one: a note), every HF call checked
    against its intent, and the masks the intent settles read over the slots
    their cache filled."""
    readings = read_masks(folder, calls, notes)
    report = against_intent.check(folder, calls)
    judged = verdicts(calls, report)
    return _over_used_slots(calls, readings, judged), report, judged


def _over_used_slots(calls: list[dict], readings: dict, judged: dict) -> dict:
    """A mask checked against its intent is read over the key slots its
    cache filled, in position order: a static cache's unused slots are not
    PAD keys, and their reading would say so."""
    import dataclasses

    import numpy as np

    from maskattn_tui.doctor import diagnose

    users = mask_users(primary(calls))
    out = dict(readings)
    for digest in judged:
        first = (layer_calls(users[digest], calls) or [{}])[0]
        k_pos = against_intent.positions((first.get("intent") or {}).get("k_pos"))
        mask, info, _ = readings[digest]
        if k_pos is None or k_pos.size != mask.shape[1] or k_pos.min() >= 0:
            continue
        used = np.flatnonzero(k_pos >= 0)
        used = used[np.argsort(k_pos[used], kind="stable")]
        table = np.asarray(mask)[:, used]
        if dataclasses.is_dataclass(info) and hasattr(info, "shape"):
            info = dataclasses.replace(info, shape=(*tuple(info.shape)[:-1], used.size))
        out[digest] = (table, info, diagnose(table, _polarity(users[digest][0]), info))
    return out


def layer_calls(users: list[dict], calls: list[dict]) -> list[dict]:
    """The HF layer calls behind these calls (an SDPA call inside a layer: that layer)."""
    by_number = {c["call"]: c for c in calls}
    found = [c if isinstance(c.get("intent"), dict) else by_number.get(c.get("within")) for c in users]
    return [c for c in found if c is not None and isinstance(c.get("intent"), dict)]


def _intent_rule(diag, layers: list[dict], lang: str) -> str:
    """A mask that matches its intent, in the intent's words (a 1 x K
    cross-attention row is not "causal"), then the reading's PAD keys."""
    from maskattn_tui.doctor.report import rule_text
    from maskattn_tui.intent.from_call import layer_intent

    named = []
    for call in layers:
        intent = layer_intent(call["intent"])[0]
        if intent is not None:
            text = against_intent.intent_text({"kind": intent.kind, "window": intent.window,
                                               "chunk": intent.chunk}, lang)
            named += [text] if text not in named else []
    join = t("doctor.report.join", lang)
    return join.join([" / ".join(named), *rule_text(diag, lang).split(join)[1:]])


def _head(folder: str, document: dict, lang: str) -> list[str]:
    calls = primary(document["calls"])
    kinds: dict[str, int] = {}
    for c in calls:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    inner = len(attention_calls(document["calls"])) - len(calls)
    command = " ".join(document.get("command") or [])
    head = "capture.report.head" if command else "capture.report.head_in_python"  # capture() in a script
    if not document.get("manifest", True):
        head = "capture.report.head_no_manifest"
    lines = [t(head, lang, folder=escaped(folder), command=command or "-", calls=len(calls),
               kinds=", ".join(f"{k} {n}" for k, n in kinds.items()) or "-", masks=len(document.get("masks", {})))]
    if inner:
        lines.append(t("capture.report.inner", lang, inner=inner))
    if not document.get("complete") and document.get("manifest", True):
        lines.append(t("capture.report.incomplete", lang))
    if document.get("exception"):
        lines.append(t("capture.report.exception", lang, exception=document["exception"]))
    elif document.get("exit_status"):
        lines.append(t("capture.report.exit_status", lang, status=document["exit_status"]))
    return lines


def note_lines(notes, lang: str) -> list[str]:
    """What was left out of the folder, one line each."""
    lines = ["  " + t("capture_folder.note", lang, message=n.message(lang)) for n in notes]
    return lines + (["  " + t("capture_folder.more", lang, count=notes.more)] if notes.more else [])


def mask_line(digest: str, diag, users: list[dict], lang: str, verdict: str | None = None,
              layers: list[dict] | None = None) -> str:
    from maskattn_tui.doctor.report import rule_text

    mask = users[0].get("mask") or {}
    codes = [f.code for f in diag.findings if f.level != "info"]
    if verdict is not None:  # checked against the calls' own intent: that verdict, not the table-only codes
        codes = [t(f"capture.report.intent_{verdict}", lang)]
    source = t(f"capture.source.{mask.get('from') or 'attn_mask'}", lang)
    slots = [(b, h) for b, row in enumerate(mask.get("hashes") or []) for h, d in enumerate(row) if d == digest]
    if slots and ((mask.get("batch") or 1) > 1 or (mask.get("heads") or 1) > 1):
        source += t("capture.report.slot", lang, b=slots[0][0], h=slots[0][1])
    if isinstance(users[0].get("k_len"), int) and diag.shape[1] < users[0]["k_len"]:  # read over the filled slots
        source += t("capture.report.filled_slots", lang, used=diag.shape[1], slots=users[0]["k_len"])
    return t("capture.report.mask", lang, hash=digest[:10], rows=diag.shape[0], keys=diag.shape[1],
             source=source, rule=_intent_rule(diag, layers, lang) if verdict == "matches" and layers else
             rule_text(diag, lang),
             findings=", ".join(codes) if codes else t("capture.report.no_findings", lang),
             count=len(users), calls=calls_text(users), sites=sites_text(users), steps=steps_text(users, lang))


def _human(folder: str, document: dict, readings: dict, found: list[dict], lang: str, judged: dict) -> list[str]:
    lines = _head(folder, document, lang) + note_lines(document["notes"], lang)
    users = mask_users(primary(document["calls"]))
    if not readings:
        lines.append(t("capture.report.no_calls", lang))
    for digest, (_, _, diag) in readings.items():
        lines.append("  " + mask_line(digest, diag, users[digest], lang, judged.get(digest),
                                      layer_calls(users[digest], document["calls"])))
    if found:
        lines.append(t("capture.report.findings", lang))
        for f in sorted(found, key=lambda f: ("error", "warning", "info").index(f["level"])):
            lines.append(f"  [{t('doctor.level.' + f['level'], lang)}] {finding_text(f, lang)}")
    else:
        lines.append(t("capture.report.healthy", lang))
    return lines


def _json(folder: str, document: dict, readings: dict, found: list[dict], lang: str, judged: dict) -> str:
    from maskattn_tui.doctor import report

    users = mask_users(primary(document["calls"]))
    masks = []
    for digest, (_, info, diag) in readings.items():
        diagnosis = report.to_json(diag, info, lang)
        if judged.get(digest) == "matches":  # the table-only warnings the calls' own intent settled
            findings = diagnosis.get("findings") or []
            diagnosis["findings"] = [f for f in findings if f.get("level") == "info"]
            diagnosis["settled_by_intent"] = [f["code"] for f in findings if f.get("level") != "info"]
        masks.append({"hash": digest, "calls": [c["call"] for c in users[digest]],
                      "sites": sorted({c["site"] for c in users[digest] if c.get("site")}),
                      "from": (users[digest][0].get("mask") or {}).get("from"), "intent": judged.get(digest),
                      "diagnosis": diagnosis})
    return report.dumps({
        "schema": SCHEMA, "folder": folder, "complete": bool(document.get("complete")),
        "manifest": document.get("manifest", True),
        "command": document.get("command"), "exception": document.get("exception"),
        "exit_status": document.get("exit_status"), "calls": len(primary(document["calls"])),
        "inner_calls": len(attention_calls(document["calls"])) - len(primary(document["calls"])),
        "masks": masks, "notes": [n.message(lang) for n in document["notes"]],
        "notes_left_out": document["notes"].more,
        "findings": [{**f, "message": finding_text(f, lang)} for f in found],
    })


def selected(calls: list[dict], call: int | None, site: str | None) -> list[dict]:
    chosen = primary(calls)
    if call is not None:
        chosen = [c for c in attention_calls(calls) if c["call"] == call]
        if not chosen:
            raise MaskattnError("capture_no_call", call=call, last=len(calls) - 1)
    if site is not None:
        chosen = [c for c in chosen if c.get("site") and fnmatch.fnmatchcase(c["site"], site)]
        if not chosen:
            raise MaskattnError("capture_no_site", site=site)
    return chosen


def _run_expect(folder: str, document: dict, args, lang: str) -> int:
    from maskattn_tui.doctor.expect_args import described as _described, expect_options as _expect_options
    from maskattn_tui.doctor.expect import expect
    from maskattn_tui.doctor.expect_result import ExpectResult
    from maskattn_tui.doctor.expect_run import compare_slices

    results, notes, tables, left_out = [], document["notes"], {}, []
    for call in selected(document["calls"], getattr(args, "call", None), getattr(args, "site", None)):
        mask = call.get("mask") or {}
        for b, row in enumerate(mask.get("hashes") or []):
            for h, digest in enumerate(row):
                if args.batch is not None and b != min(args.batch, len(mask["hashes"]) - 1) or \
                        args.head is not None and h != min(args.head, len(row) - 1):
                    continue
                key = (digest, call["q_len"], call["k_len"])  # each table read once, checked per call shape
                try:
                    if key not in tables:
                        tables[key] = read_table_of(folder, digest, [call])[0]
                except MaskattnError as problem:
                    tables[key] = problem
                if isinstance(tables[key], MaskattnError):
                    left_out.append(CallsNote([call], tables[key]))
                    continue
                table = tables[key]
                options = _expect_options(table.shape, args)
                polarity = _polarity(call) or args.polarity or "attend"
                compared = compare_slices(table, digest, None, None,
                                          lambda _, m: expect(m, options, polarity, digest), polarity)
                results.append((call, b, h, table.shape, options, ExpectResult.of_slices(options.as_dict(), compared)))
    if left_out and not results:
        raise left_out[0]
    for note in left_out:
        notes.add(note)
    if args.json:
        from maskattn_tui.doctor.report import dumps

        sys.stdout.write(dumps({"schema": "maskattn-capture-expect/1", "folder": folder,
                                "notes": [n.message(lang) for n in notes], "results": [
            {"call": c["call"], "site": c.get("site"), "batch": b, "head": h, "shape": list(shape),
             **r.as_json()} for c, b, h, shape, o, r in results]}) + "\n")
    else:
        for line in note_lines(notes, lang):
            sys.stdout.write(line + "\n")
        for c, b, h, shape, o, r in results:
            key = "capture.expect.match" if r.count == 0 else "capture.expect.differs"
            sys.stdout.write(t(key, lang, call=c["call"], site=c.get("site") or "-", b=b, h=h, count=r.count,
                               total=shape[0] * shape[1], options=_described(o)) + "\n")
        matched = sum(r.count == 0 for *_, r in results)
        sys.stdout.write(t("capture.expect.summary", lang, matched=matched, total=len(results)) + "\n")
    # a slice left out was not checked: not a pass
    return 0 if not left_out and all(r.count == 0 for *_, r in results) else 1


def summary_rows(calls: list[dict], folder: str, lang: str = "en") -> list[tuple[str | None, str]]:
    """Capture.summary()'s lines, each with its mask's worst finding level
    ("error", "warning", or None) for the notebook's colours and words; the
    folder reader's notes last."""
    notes = capture_folder.Notes()
    readings, _, judged = judge(folder, calls, notes)
    users = mask_users(primary(calls))
    rows = []
    for digest, (_, _, diag) in readings.items():
        levels = [f.level for f in diag.findings] if judged.get(digest) != "matches" else []
        rows.append((next((level for level in ("error", "warning") if level in levels), None),
                     mask_line(digest, diag, users[digest], lang, judged.get(digest),
                               layer_calls(users[digest], calls))))
    return (rows or [(None, t("capture.report.no_calls", lang))]) + \
        [("warning", line.strip()) for line in note_lines(notes, lang)]
