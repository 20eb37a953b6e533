"""What `doctor FILE.py:NAME` prints: the block counts in FlexAttention's
terms, print(block_mask)'s picture, the reading and --expect's result, as
text (either language) or JSON."""

from __future__ import annotations

import numpy as np

from maskattn_tui.doctor.compare import Comparison
from maskattn_tui.doctor.report import cells_text
from maskattn_tui.doctor.rules import Rule
from maskattn_tui.i18n import catalog, t
from maskattn_tui.scale.blocks import BlockMap
from maskattn_tui.scale.reading import ModDiagnosis

SCHEMA = "maskattn-doctor-mask-mod/1"
#: Q-block rows listed one by one before the rest is summarised.
ROWS_LISTED = 8


def _words(kind: str, name: str) -> str:
    """doctor.<kind>.<name>, or this module's own words for one the doctor has none for."""
    key = f"doctor.{kind}.{name}"
    return key if key in catalog() else f"scale.{kind}.{name}"


def rule_text(rule: Rule, name: str, lang: str) -> str:
    """The doctor's words for a rule (doctor.rule.*)."""
    from maskattn_tui.doctor.families import family_of

    key = family_of(name, rule) if name == "globals" else name  # global tokens or sink keys: the family says which
    parts = [t(_words("rule", key), lang, blocks=len(getattr(rule, "blocks", ()) or ()), w=rule.window, c=rule.chunk,
               p=rule.prefix, lengths=",".join(map(str, rule.documents or ())),
               parents=",".join(map(str, (rule.tree or ())[:20])), left=(rule.window or 1) - 1,
               right=rule.right_width, globals=", ".join(f"{a}-{b - 1}" if b - a > 1 else f"{a}" for a, b in rule.globals))]
    if name == "documents" and rule.window is not None:
        parts.append(t("doctor.rule.window", lang, w=rule.window))
    if rule.pad:
        first, last = (0, rule.pad - 1) if rule.pad_side == "left" else (rule.keys - rule.pad, rule.keys - 1)
        parts.append(t("doctor.rule.pad", lang, first=first, last=last, side=t(f"doctor.side.{rule.pad_side}", lang)))
    return t("doctor.report.join", lang).join(parts)


def _per_row(values: np.ndarray) -> str:
    head = ",".join(str(int(v)) for v in values[:ROWS_LISTED])
    return head + (",…" if values.size > ROWS_LISTED else "")


def block_lines(blocks: BlockMap, lang: str) -> list[str]:
    c = blocks.counts()
    block = blocks.q_block if blocks.q_block == blocks.kv_block else f"({blocks.q_block}, {blocks.kv_block})"
    partial, full = blocks.kv_num_blocks, blocks.full_kv_num_blocks
    return [
        t("scale.blocks", lang, q_len=blocks.q_len, kv_len=blocks.kv_len, block=block, partial=c["partial"],
          full=c["full"], empty=c["empty"], total=c["total"], sparsity=f"{blocks.sparsity():.2f}"),
        t("scale.per_row", lang, p_min=int(partial.min()), p_max=int(partial.max()), f_min=int(full.min()),
          f_max=int(full.max()), partial=_per_row(partial), full=_per_row(full)),
    ]


def reading_lines(diag: ModDiagnosis, lang: str) -> list[str]:
    lines = []
    if diag.fit is None:
        lines.append(t("scale.reading.skipped", lang, rows=diag.split_rows, cells=diag.skipped_cells))
    else:
        alignment = t(_words("alignment", diag.alignment), lang, offset=diag.offset)
        lines.append(t("scale.reading.rule", lang, rule=rule_text(diag.fit.rule, diag.fit.name, lang),
                       alignment=alignment))
        for other in diag.also:
            lines.append(t("scale.reading.also", lang, rule=rule_text(other.rule, other.name, lang)))
        comp = diag.fit.comparison
        if comp.count:
            lines.append(t("scale.reading.differs", lang, count=comp.count, cells=cells_text(comp.cells, comp.count)))
        if comp.leak_count:
            lines.append(t("scale.reading.leaks", lang, count=comp.leak_count,
                           cells=cells_text(comp.leaks, comp.leak_count)))
    if diag.fit is not None and diag.alignment == "top-left":
        rule = diag.fit.rule
        lines.append(t("scale.reading.top_left", lang, past=rule.keys - rule.rows))
    if diag.empty_count:
        lines.append(t("scale.reading.empty", lang, count=diag.empty_count,
                       rows=", ".join(map(str, diag.empty_rows)) + (" …" if diag.empty_count > len(diag.empty_rows) else "")))
    if diag.split_rows:
        lines.append(t("scale.reading.split", lang, rows=diag.split_rows))
    return lines


def expect_lines(spec: str, comp: Comparison, extra: list, missing: list, described: str, cells: int,
                 rule_blocks: BlockMap, blocks: BlockMap, lang: str) -> list[str]:
    differ = int(np.count_nonzero(rule_blocks.kind != blocks.kind))
    if comp.count == 0:
        return [t("scale.expect.match", lang, spec=spec, options=described, blocks=blocks.counts()["total"])]
    lines = [t("doctor.expect.differs", lang, file=spec, count=comp.count, total=cells, options=described),
             t("scale.expect.blocks", lang, count=differ)]
    if extra:
        lines.append(t("doctor.expect.extra", lang, cells=cells_text(extra, len(extra))))
    if missing:
        lines.append(t("doctor.expect.missing", lang, cells=cells_text(missing, len(missing))))
    if comp.count > len(comp.cells):
        lines.append(t("doctor.expect.more", lang, more=comp.count - len(comp.cells)))
    return lines


def blocks_json(blocks: BlockMap) -> dict:
    return {"block_size": [blocks.q_block, blocks.kv_block], **blocks.counts(),
            "sparsity": round(blocks.sparsity(), 6),
            "kv_num_blocks": blocks.kv_num_blocks.tolist(), "full_kv_num_blocks": blocks.full_kv_num_blocks.tolist(),
            "picture": blocks.picture()}


def reading_json(diag: ModDiagnosis) -> dict:
    out = {"alignment": diag.alignment, "offset": diag.offset,
           "empty_rows": list(diag.empty_rows), "empty_count": diag.empty_count, "split_rows": diag.split_rows}
    if diag.fit is None:
        out.update(family=None, skipped_cells=diag.skipped_cells)
        return out
    comp = diag.fit.comparison
    out.update(family=diag.fit.family, pattern=diag.fit.name, rule=diag.fit.rule.describe(),
               also=[{"family": f.family, "pattern": f.name, "rule": f.rule.describe()} for f in diag.also],
               differs_count=comp.count, differs=[list(c) for c in comp.cells],
               leak_count=comp.leak_count, leaks=[list(c) for c in comp.leaks])
    return out


def reuse_lines(result, lang: str) -> list[str]:
    (q0, k0, b0), (q, k, b) = result.built, result.used
    params = dict(q0=q0, k0=k0, b0=b0, q=q, k=k, b=b)
    lines = []
    if result.lengths != "same":
        lines.append(t(f"scale.reuse.{result.lengths}", lang, **params))
    if b0 != b:
        lines.append(t("scale.reuse.block", lang, **params))
    if result.cells_differ is not None:
        lines.append(t("scale.reuse.result", lang, cells=result.cells_differ, blocks=result.blocks_differ, **params))
        if result.cells:
            shown = " ".join(f"({r},{c}){'+' if s else '-'}" for r, c, s in result.cells)
            more = result.cells_differ - len(result.cells)
            lines.append(t("scale.reuse.cells", lang, cells=shown + (f" +{more}" if more > 0 else "")))
    return lines


def reuse_json(result) -> dict:
    return {"built": list(result.built), "used": list(result.used), "lengths": result.lengths,
            "refused": result.lengths != "same", "blocks_differ": result.blocks_differ,
            "cells_differ": result.cells_differ,
            "cells": [{"row": r, "key": c, "shown": s} for r, c, s in result.cells]}
