"""Advice that cannot break a correct mask: before a finding tells the user
to change a mask, the doctor reads the table that change gives. It must
read as a known family, exactly, with no error-level finding; otherwise the
advice is a question ("if ... was meant, then ..."), at warning level, and
says what the fixed table would read as.

    findings = checked_advice(findings, diag, reading, rediagnose)

Each finding that advises a change carries its fixed table as a function
(`Finding.fix`, True = may read); `rediagnose(table)` is the doctor's own
diagnosis without this check (so it never recurses)."""

from __future__ import annotations

from dataclasses import replace

from maskattn_tui.doctor.representation import Reading

#: The key under which a finding's params carry what its fixed table read as.
FIXED = "_fixed"


def fixes_of(finding, diag, reading: Reading):
    """The fixed table of a finding whose advice is fixed by its code alone
    (the ones built in doctor.findings carry theirs): passing ~mask (or
    mask == 0) to an API that reads True / 1 as attend keeps this reading,
    read True = blocked; the KV-cache fix of a top-left table is the
    bottom-right one; swapping an additive mask's 0 and -inf gives the table
    read the other way round."""
    rows = diag.shape[0]
    if finding.code in ("true-means-blocked", "inverted") and finding.params.get("variant") != "additive":
        return lambda: reading.band(0, rows)
    if finding.code == "top-left":
        rule = diag.rule.replace(offset=diag.shape[1] - rows)
        return lambda: rule.table_rows(slice(0, rows))
    if finding.code == "inverted":
        return lambda: ~reading.band(0, rows)
    return None


def checked_advice(findings: list, diag, reading: Reading, rediagnose) -> list:
    from maskattn_tui.doctor.findings import FIX_CELLS

    out = []
    rows, keys = diag.shape
    for finding in findings:
        fix = finding.fix or fixes_of(finding, diag, reading)
        if fix is None or finding.level == "info" or rows * keys > FIX_CELLS:
            out.append(finding)
            continue
        fixed = rediagnose(fix())
        errors = [f.code for f in fixed.findings if f.level == "error"]
        sound = fixed.fit.comparison.count == 0 and not errors
        params = {**finding.params, FIXED: (fixed, sound)}
        out.append(replace(finding, params=params, fix=fix,
                           level=finding.level if sound else "warning"))
    return out


def fixed_of(finding):
    """(the fixed table's diagnosis, sound) of a checked finding, or None."""
    return finding.params.get(FIXED)
