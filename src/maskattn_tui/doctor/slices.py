"""The (batch, head) slices of a 3-D or 4-D mask: which are distinct, and
each distinct one diagnosed (or compared with --expect / --against).

    groups = distinct_slices(array, batch=None, head=None)
    [(g.index, g.members) for g in groups]     # ((1, 0), 3): slice b1 h0 and 2 equal to it

A 3-D mask's first dimension is named "batch" (SDPA reads it per head:
the per-head-broadcast finding says so). Slices are told apart by a hash
of their bytes; more than SLICES_LIMIT are not all read, the first ones
are and the report says how many were left out."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from maskattn_tui.i18n import t

#: Slices hashed at most (beyond them: the first SLICES_LIMIT only).
SLICES_LIMIT = 4096
#: Distinct slices diagnosed one by one (the report lists them).
DIAGNOSED = 16


@dataclass(frozen=True)
class SliceGroup:
    index: tuple[int, ...]  # the first slice of this content: (b,) or (b, h)
    members: tuple[tuple[int, ...], ...]  # every slice equal to it (itself first)


def load_all(path, batch: int | None, head: int | None, key: str | None):
    """(the whole array, the chosen 2-D slice, its MaskInfo): load_mask,
    keeping the array for the other slices."""
    import os
    from dataclasses import replace

    from maskattn_tui.doctor.read import read_array, select

    name = os.fspath(path)
    array, fmt, dtype, used = read_array(name, key)
    mask, info = select(array, name, fmt, dtype, batch, head)
    return array, mask, (info if used is None else replace(info, key=used))


def slice_indexes(shape: tuple[int, ...], batch: int | None, head: int | None) -> list[tuple[int, ...]]:
    """The slices --batch / --head choose (all of them when neither is given)."""
    lead = shape[:-2]
    if len(lead) == 1:
        chosen = batch if batch is not None else head
        return [(chosen,)] if chosen is not None else [(i,) for i in range(lead[0])]
    bs = [batch] if batch is not None else range(lead[0])
    hs = [head] if head is not None else range(lead[1])
    return [(b, h) for b in bs for h in hs]


def distinct_slices(array: np.ndarray, batch: int | None = None, head: int | None = None) -> tuple[list[SliceGroup], int]:
    """The distinct slices among those chosen, in first-seen order, and how
    many slices were left unread (beyond SLICES_LIMIT)."""
    indexes = slice_indexes(tuple(array.shape), batch, head)
    left_out = max(0, len(indexes) - SLICES_LIMIT)
    groups: dict[bytes, list] = {}
    for index in indexes[:SLICES_LIMIT]:
        digest = hashlib.blake2b(np.ascontiguousarray(array[index]).tobytes(), digest_size=16).digest()
        groups.setdefault(digest, []).append(index)
    return [SliceGroup(m[0], tuple(m)) for m in groups.values()], left_out


def label(index: tuple[int, ...], lang: str) -> str:
    if len(index) == 1:
        return t("doctor_slices.label3", lang, batch=index[0])
    return t("doctor_slices.label", lang, batch=index[0], head=index[1])


def members_text(group: SliceGroup, lang: str) -> str:
    """The slices equal to this one, briefly: "batch 0, head 0 (+3 equal)"."""
    more = len(group.members) - 1
    return label(group.index, lang) + (t("doctor_slices.equal", lang, n=more) if more else "")


def diagnose_slices(array: np.ndarray, info, polarity: str | None, groups: list[SliceGroup],
                    float_mask: str | None = None) -> list[tuple]:
    """(group, diagnosis) of the first DIAGNOSED distinct slices."""
    from dataclasses import replace

    from maskattn_tui.doctor.diagnosis import diagnose

    out = []
    for group in groups[:DIAGNOSED]:
        index = group.index
        sliced = replace(info, batch=index[0], head=index[1] if len(index) > 1 else None)
        out.append((group, diagnose(array[index], polarity, sliced, float_mask)))
    if polarity is not None or len({diag.polarity for _, diag in out}) < 2:
        return out
    # the slices disagree: polarity is one for the whole set, the one whose readings are simplest in all
    from maskattn_tui.doctor.families import cost

    forced = {pol: [diagnose(array[group.index], pol, diag_source, float_mask)
                    for (group, _), diag_source in zip(out, (replace(info, batch=g.index[0],
                                                                     head=g.index[1] if len(g.index) > 1 else None)
                                                             for g, _ in out))]
              for pol in ("attend", "blocked")}
    total = {pol: sum(cost(d.rule) + d.fit.comparison.count for d in forced[pol]) for pol in forced}
    chosen = "blocked" if total["blocked"] < total["attend"] else "attend"
    return [(group, diag) for (group, _), diag in zip(out, forced[chosen])]


def settled(diag, results: list[tuple], mask, info, float_mask: str | None):
    """The shown slice's diagnosis under the polarity the whole set decided
    (diagnose_slices): the first slice read is the one shown."""
    if not results or results[0][1].polarity == diag.polarity:
        return diag
    from maskattn_tui.doctor.diagnosis import diagnose

    return diagnose(mask, results[0][1].polarity, info, float_mask)


def slice_lines(results: list[tuple], groups: list[SliceGroup], left_out: int, lang: str) -> list[str]:
    """The report's lines on the slices: how many distinct, then one line each."""
    from maskattn_tui.doctor.report import rule_text

    total = sum(len(g.members) for g in groups) + left_out
    lines = [t("doctor_slices.head", lang, distinct=len(groups), total=total)]
    for group, diag in results:
        errors = [f.code for f in diag.findings if f.level == "error"]
        lines.append(t("doctor_slices.line", lang, slice=members_text(group, lang), rule=rule_text(diag, lang),
                       differs=diag.fit.comparison.count,
                       errors=", ".join(errors) if errors else t("doctor_slices.no_errors", lang)))
    lines += _across(results, lang)
    if len(groups) > len(results):
        lines.append(t("doctor_slices.more", lang, n=len(groups) - len(results)))
    if left_out:
        lines.append(t("doctor_slices.left_out", lang, n=left_out, limit=SLICES_LIMIT))
    return lines


def _across(results: list[tuple], lang: str) -> list[str]:
    """What the slices' readings say together: one rule in every slice (the
    values differ: a per-head bias such as ALiBi's slopes), or rules that
    differ between heads of one batch item (a per-head mask)."""
    if len(results) < 2:
        return []
    rules = {repr(sorted(diag.rule.describe().items())) for _, diag in results}
    if len(rules) == 1:
        return [t("doctor_reading.slices_alike", lang)]
    heads = [group.index for group, _ in results if len(group.index) == 2]
    if len(heads) == len(results) and len({b for b, _ in heads}) == 1:
        return [t("doctor_reading.per_head", lang)]
    return []


def slice_json(results: list[tuple], lang: str) -> list[dict]:
    from maskattn_tui.doctor.report import rule_text

    out = []
    for group, diag in results:
        out.append({
            "index": list(group.index), "members": [list(m) for m in group.members],
            "family": diag.family, "polarity": diag.polarity, "rule": rule_text(diag, lang),
            "differs": diag.fit.comparison.count, "pad_key_count": sum(b - a for a, b in diag.pad_runs),
            "empty_row_count": diag.empty_row_count, "pad_query_rows": list(diag.pad_query_rows),
            "findings": [{"code": f.code, "level": f.level} for f in diag.findings],
        })
    return out
