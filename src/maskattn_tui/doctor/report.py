"""What the doctor prints: the JSON document (strict JSON, schema
"maskattn-doctor/1") and the short human report, in either language.
Plain text, no Rich.

The JSON document (a contract: tests/test_doctor_cli.py checks the fields).
Cells are [row, key]; lists of cells hold at most 20, the *_count says how
many there are. No NaN/Infinity tokens: a missing number is null.

    schema "maskattn-doctor/1"; file, format, stored_shape, dtype, batch,
    head, distinct_slices                      what was read
    shape [L, S]
    representation  bool|int01|float01|additive-inf|additive-finite|mixed
    minimum, minimum_dtype                     additive-finite only, else null
    polarity attend|blocked; alignment bottom-right|top-left|none; offset
    alignment_score, hypotheses [{polarity, alignment, score}]
    api             sdpa|mha|additive|int01|float01 (whose fixes are spelled)
    family          the reading's family (doctor.families); polarity_assumed
    rule            {name, causal, past, pad, pad_side, window, chunk, prefix,
                     documents, tree, right, gaps, blocks, unused, differs,
                     cells}: the chosen reading
    alternatives    [{family, rule, differs, cost}]: readings as simple
    unused_slots, unused_slot_count; pad_runs; bidirectional_blocks;
    window_left, window_right
    leaks, leak_count                visible future cells the rule hides
    empty_rows, empty_row_count      rows with no visible key
    pad_keys, pad_key_count (every PAD run), pad_side (of the edge run),
    pad_query_rows, pad_query_row_count
    window (keys incl. self), chunk, prefix, documents (lengths), tree
    (parents): null when absent
    findings        [{code, level error|warning|info, message, cells, count}]

`doctor --attention-mask` adds attention_mask and expected_position_ids
(-1 at PAD); positions findings' cells are [token, given, expected].
`--expect --json` writes {schema "maskattn-doctor-expect/1", file, shape,
representation, polarity, expected {past, new, pad, pad_side, causal,
window, chunk, prefix, documents, tree, window_right, bidirectional, pad_keys,
cache_slots}, match, differs, differs_count,
shown_but_hidden, hidden_but_shown}."""

from __future__ import annotations

import re
import shlex

import numpy as np

from maskattn_tui import strict_json
from maskattn_tui.doctor.blocks import FULL, PARTIAL, block_overview
from maskattn_tui.doctor.compare import CELL_LIMIT
from maskattn_tui.doctor.diagnosis import Diagnosis, Finding
from maskattn_tui.doctor.advice import FIXED
from maskattn_tui.i18n import catalog, counted, t

SCHEMA = "maskattn-doctor/1"
#: The human report lists findings in this order.
LEVELS = ("error", "warning", "info")
#: Masks up to this many rows and keys are drawn cell by cell.
GRID_MAX = 48
#: Code for each API the mask looks meant for: a correct bottom-right causal
#: table of this shape, and the value that hides a cell.
SNIPPETS = {
    "sdpa": ("torch.ones({L}, {S}, dtype=torch.bool).tril({d})", "False"),
    "mha": ("torch.ones({L}, {S}, dtype=torch.bool).triu({d1})", "True"),
    "additive": ("torch.full(({L}, {S}), float('-inf')).triu({d1})", "-inf"),
    "int01": ("torch.ones({L}, {S}, dtype=torch.long).tril({d})", "0"),
    "float01": ("torch.zeros({L}, {S}).masked_fill(mask == 0, float('-inf'))", "-inf"),
}


def cells_text(cells, count: int) -> str:
    shown = " ".join("(" + ",".join(str(v) for v in cell) + ")" for cell in cells)
    more = count - len(cells)
    return shown + (f" +{more}" if more > 0 and cells else "")


def _fix_params(api: str, rows: int, keys: int, lang: str) -> dict:
    snippet, hide = SNIPPETS[api]
    d = keys - rows
    return {"api": t(f"doctor.api.{api}", lang), "hide": hide, "rows": rows, "keys": keys, "past": d,
            "snippet": snippet.format(L=rows, S=keys, d=d, d1=d + 1)}


def _readings_text(diag: Diagnosis, lang: str) -> str:
    """The chosen reading and its equals, each with its differing cells and
    the --expect options that state it (they tell the readings apart)."""
    from maskattn_tui.doctor.expect_args import reading_flags

    parts = []
    for name, family, rule, comparison in ((diag.fit.name, diag.family, diag.rule, diag.fit.comparison),
                                           *((s.name, s.family, s.rule, s.comparison) for s in diag.alternatives)):
        text = reading_text(name, family, rule, lang)
        if comparison.count:
            key = "doctor.reading.differs.one" if comparison.count == 1 else "doctor.reading.differs.many"
            text += t(key, lang, count=comparison.count, cells=cells_text(comparison.cells, comparison.count))
        flags = reading_flags(rule) if not comparison.count else None
        if flags is not None:
            text += t("doctor_reading.flags", lang, flags=flags + polarity_flag(diag))
        parts.append(t("doctor.reading.item", lang, text=text))
    return t("doctor.reading.or", lang).join(parts)


def polarity_flag(diag: Diagnosis) -> str:
    """" --polarity blocked" when the mask reads True = blocked (--expect reads True as attend)."""
    return " --polarity blocked" if diag.polarity == "blocked" else ""


def finding_message(finding: Finding, diag: Diagnosis | None, lang: str) -> str:
    params = dict(finding.params)
    if diag is not None:
        params = {**_fix_params(diag.api, *diag.shape, lang), "rule": rule_text(diag, lang), **params}
        if finding.code == "top-left":
            params["fix"] = t(f"doctor.fix.top-left.{diag.api}", lang, **params)
        if finding.code == "readings":
            params["readings"] = _readings_text(diag, lang)
    params.setdefault("count", finding.count)
    params["cells"] = cells_text(finding.cells, finding.count)
    variant = params.pop("variant", None)
    checked = params.pop(FIXED, None)
    key = f"doctor.finding.{finding.code}" + (f".{variant}" if variant else "")
    if params.get("count") == 1 and f"{key}.one" in catalog():  # "1 row has", not "1 rows have"
        key += ".one"
    text = t(key, lang, **params)
    if checked is not None and not checked[1] and diag is not None:  # the fix reads as broken: ask
        fixed = checked[0]
        text = t("doctor_reading.question", lang, meant=rule_text(diag, lang), advice=text,
                 fixed=rule_text(fixed, lang), differs=counted(fixed.fit.comparison.count, "cell", lang))
    return text


def fix_json(finding: Finding, lang: str) -> dict | None:
    """What the table a finding's fix gives reads as, if it was read."""
    checked = finding.params.get(FIXED)
    if checked is None:
        return None
    fixed, sound = checked
    return {"family": fixed.family, "reading": rule_text(fixed, lang), "differs": fixed.fit.comparison.count,
            "errors": [f.code for f in fixed.findings if f.level == "error"], "sound": sound}


def finding_json(finding: Finding, diag: Diagnosis | None, lang: str) -> dict:
    return {"code": finding.code, "level": finding.level, "message": finding_message(finding, diag, lang),
            "cells": [list(c) for c in finding.cells], "count": finding.count, "fix": fix_json(finding, lang)}


def _pad_list(runs) -> list[int]:
    """The first PAD keys of every run (at most CELL_LIMIT)."""
    out: list[int] = []
    for a, b in runs:
        out.extend(range(a, min(b, a + CELL_LIMIT - len(out))))
    return out


def to_json(diag: Diagnosis, info, lang: str, extra: tuple[Finding, ...] = (), slices: list | None = None) -> dict:
    rep, align, fit = diag.representation, diag.alignment, diag.fit
    pad = diag.pad_keys
    return {
        "schema": SCHEMA,
        "file": info.path, "key": getattr(info, "key", None), "format": info.format,
        "stored_shape": list(info.shape), "dtype": info.dtype,
        "batch": info.batch, "head": info.head, "distinct_slices": info.distinct_slices,
        "shape": list(diag.shape),
        "representation": rep.kind, "minimum": rep.minimum, "minimum_dtype": rep.minimum_dtype,
        "polarity": align.polarity, "alignment": align.alignment, "offset": align.offset,
        "alignment_score": round(align.score, 4),
        "hypotheses": [{"polarity": p, "alignment": a, "score": s} for p, a, s in align.scores],
        "api": diag.api,
        "family": diag.family, "polarity_assumed": diag.polarity_assumed,
        "rule": {"name": fit.name, **fit.rule.describe(), "differs": fit.comparison.count,
                 "cells": [list(c) for c in fit.comparison.cells]},
        "alternatives": [{"family": s.family, "rule": {"name": s.name, **s.rule.describe()},
                          "differs": s.comparison.count, "cost": s.cost} for s in diag.alternatives],
        "unused_slots": list(diag.unused_slots) if diag.unused_slots else None,
        "unused_slot_count": fit.rule.unused,
        "pad_runs": [list(r) for r in diag.pad_runs],
        "bidirectional_blocks": [list(b) for b in fit.rule.blocks],
        "window_left": None if diag.window is None else diag.window - 1,
        "window_right": None if diag.window is None else fit.rule.right_width,
        "window_kind": None if diag.window is None else ("causal" if fit.rule.causal else "two-sided"),
        "window_half_width": _half_width(fit.rule),
        "leaks": [list(c) for c in diag.leaks], "leak_count": diag.leak_count,
        "empty_rows": list(diag.empty_rows), "empty_row_count": diag.empty_row_count,
        "pad_keys": _pad_list(diag.pad_runs), "pad_key_count": sum(b - a for a, b in diag.pad_runs),
        "pad_side": diag.pad_side,
        "pad_query_rows": list(diag.pad_query_rows), "pad_query_row_count": diag.pad_query_row_count,
        "window": None if diag.window is None else diag.window + fit.rule.right_width,
        "chunk": diag.chunk, "prefix": diag.prefix,
        "documents": list(diag.documents) if diag.documents is not None else None,
        "tree": list(diag.tree) if diag.tree is not None else None,
        "findings": [finding_json(f, diag, lang) for f in (*diag.findings, *extra)],
        "slices": slices,
    }


def _half_width(rule) -> int | None:
    """|q - k| <= h: a two-sided window's h when both sides are equal."""
    if rule.window is None or rule.causal or rule.right_width != rule.window - 1:
        return None
    return rule.window - 1


_FLAT_LIST = re.compile(r"\[\s+([-+\deE., \n]*?)\s+\]")


def dumps(document: dict) -> str:
    """Strict JSON (NaN/Infinity refused, not written), indented, with
    lists of numbers on one line."""
    text = strict_json.dumps(document)
    return _FLAT_LIST.sub(lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]", text)


def _runs(runs) -> str:
    return ", ".join(f"{a}" if b - a == 1 else f"{a}-{b - 1}" for a, b in runs[:CELL_LIMIT])


def reading_text(name: str, family: str, rule, lang: str) -> str:
    """A reading in words: its family and parameters, then its PAD keys."""
    from maskattn_tui.doctor.diagnosis import chunk_lengths

    documents = chunk_lengths(rule.keys, rule.chunk, rule.chunk_origin) if rule.chunk else rule.documents
    parts = [t(f"doctor.rule.{family}", lang, w=rule.window, c=rule.chunk, p=rule.prefix,
               lengths=",".join(map(str, documents or ())),
               parents=",".join(map(str, (rule.tree or ())[:CELL_LIMIT])),
               left=None if rule.window is None else rule.window - 1, right=rule.right_width,
               filled=rule.offset, unused=rule.unused, blocks=_runs(rule.blocks), globals=_runs(rule.globals))]
    if rule.window is not None and name in ("documents", "blocks"):
        parts.append(t("doctor.rule.window", lang, w=rule.window))
    if rule.pad:
        a, b = rule._pad_keys()
        parts.append(t("doctor.rule.pad" if b - a > 1 else "doctor.rule.pad1", lang, first=a, last=b - 1,
                       side=t(f"doctor.side.{rule.pad_side}", lang)))
    if rule.gaps:
        parts.append(t("doctor.rule.gaps", lang, runs=_runs(rule.gaps)))
    if rule.pad_rows:
        parts.append(t("doctor.rule.pad_rows", lang))
    return t("doctor.report.join", lang).join(parts)


def rule_text(diag: Diagnosis, lang: str) -> str:
    return reading_text(diag.fit.name, diag.family, diag.rule, lang)


def _picture(mask, diag: Diagnosis, lang: str) -> list[str]:
    from maskattn_tui.doctor.representation import Reading

    rows, keys = diag.shape
    reading = Reading(mask, diag.representation, diag.polarity)
    if rows <= GRID_MAX and keys <= GRID_MAX:
        got = reading.band(0, rows)
        want = diag.rule.table_rows(slice(0, rows))
        chars = np.where(got, np.where(want, "#", "!"), np.where(want, "o", "."))
        lines = [t("doctor.report.grid", lang)]
        lines += [f"  q{int(r) + diag.offset:<4}" + "".join(chars[r]) for r in range(rows)]
        return lines
    block = -(-max(rows, keys) // GRID_MAX)
    tiles = block_overview(mask, block, diag.polarity)
    chars = np.where(tiles == FULL, "#", np.where(tiles == PARTIAL, "+", "."))
    return [t("doctor.report.blocks", lang, block=block)] + ["  " + "".join(line) for line in chars]


def check_options(diag: Diagnosis, info) -> str:
    """What else the printed check line needs to pass on its file: the
    polarity, the array's key, the slice when the file's slices differ, how
    a float 0/1 mask is used."""
    out = polarity_flag(diag)
    key = getattr(info, "key", None)
    if key is not None:
        out += f" --key {shlex.quote(str(key))}"
    if info.batch is not None and getattr(info, "distinct_slices", None) not in (None, 1):
        out += f" --batch {info.batch}" + ("" if info.head is None else f" --head {info.head}")
    if diag.representation.kind == "float01" and diag.representation.reading == "additive":
        out += " --float-mask added"
    return out


def summary_lines(diag: Diagnosis, info, lang: str) -> list[str]:
    """What was read and how: the file, the slice, the representation, the
    reading and the rule (the report's head; the TUI's first section)."""
    rep, align = diag.representation, diag.alignment
    rows, keys = diag.shape
    key = getattr(info, "key", None)  # the array read from a .npz / .safetensors / dict .pt
    lines = [t("doctor.report.head", lang, file=info.path if key is None else f"{info.path}[{key}]",
               format=info.format, dtype=info.dtype,
               shape="x".join(map(str, info.shape)))]
    if info.batch is not None and info.distinct_slices != 1:  # one slice: nothing to choose
        lines.append(t("doctor.report.slices3" if info.head is None else "doctor.report.slices", lang,
                       distinct="?" if info.distinct_slices is None else info.distinct_slices,
                       batch=info.batch, head=info.head))
    kind = t(f"doctor.repr.{rep.kind}", lang, minimum=f"{rep.minimum:.6g}" if rep.minimum is not None else "",
             dtype=rep.minimum_dtype or "?")
    lines.append(t("doctor.report.representation", lang, rows=rows, keys=keys, kind=kind))
    lines.append(t("doctor.report.reading", lang, polarity=t(f"doctor.polarity.{align.polarity}.{rep.reading}", lang),
                   alignment=t(f"doctor.alignment.{align.alignment}", lang, offset=align.offset),
                   score=f"{align.score:.2f}"))
    lines.append(t("doctor.report.rule", lang, rule=rule_text(diag, lang), differs=f"{diag.fit.comparison.count:,}"))
    return lines


def ordered_findings(diag: Diagnosis, extra: tuple[Finding, ...] = ()) -> list[Finding]:
    """Errors first, then warnings, then information."""
    return sorted((*diag.findings, *extra), key=lambda f: LEVELS.index(f.level))


def page_width() -> int:
    """The report's width: COLUMNS, else the terminal's (stdout's, or
    stderr's when stdout is a pipe: `doctor m.npy | head`), else 100."""
    import os

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit():
        return max(40, min(160, int(columns)))
    for fd in (1, 2):
        try:
            return max(40, min(160, os.get_terminal_size(fd).columns))
        except (OSError, ValueError):
            continue
    return 100


def hanging(head: str, text: str, width: int | None = None) -> list[str]:
    """`head` + `text` wrapped to the page, its later lines indented under
    the text (a finding reads as one item, not a 300-character line)."""
    from maskattn_tui.cjk_wrap import cell_width, wrap

    indent = cell_width(head)
    lines = wrap(text, max(20, (width or page_width()) - indent))
    return [head + lines[0], *(" " * indent + line for line in lines[1:])]


def human(diag: Diagnosis, info, lang: str, mask=None, extra: tuple[Finding, ...] = ()) -> str:
    lines = summary_lines(diag, info, lang)
    from maskattn_tui.doctor.expect_args import reading_flags  # the exact reading as --expect flags

    # a file whose slices all read alike: --expect checks every slice of it
    exact = info.format != "hf-pair" and diag.fit.comparison.count == 0 and not diag.alternatives
    flags = reading_flags(diag.rule) if exact else None
    if flags is not None:
        lines.append(t("doctor.report.check", lang, file=shlex.quote(info.path),
                       flags=flags + check_options(diag, info)))
    findings = ordered_findings(diag, extra)
    if findings:
        lines.append(t("doctor.report.findings", lang))
        for f in findings:
            lines += hanging(f"  [{t(f'doctor.level.{f.level}', lang)}] ", finding_message(f, diag, lang))
    else:
        lines.append(t("doctor.report.healthy", lang))
    if mask is not None:
        lines += _picture(mask, diag, lang)
    return "\n".join(lines) + "\n"
