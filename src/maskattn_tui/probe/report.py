"""What a probe found, as data (ProbeReport), as text in either language
and as JSON (schema maskattn-probe/1, docs/json.md). No torch here."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from maskattn_tui.cjk_wrap import cell_width
from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t

SCHEMA = "maskattn-probe/1"
INVARIANCES = ("future", "cache", "padding", "chunked", "packing", "backends")


def only_names(only) -> tuple[str, ...]:
    """--only's names (a string "future,cache" or names), checked before any model runs."""
    if only is None:
        return INVARIANCES
    names = tuple(n.strip() for n in (only.split(",") if isinstance(only, str) else only) if n.strip())
    bad = [n for n in names if n not in INVARIANCES]
    if bad or not names:
        raise MaskattnError("probe_only", name=(bad or [""])[0], names=", ".join(INVARIANCES))
    return names


@dataclass
class CaseResult:
    name: str
    status: str  # held | broken | skipped
    max_diff: float | None = None
    tolerance: float | None = None
    rtol: float | None = None
    scale: float | None = None
    first_position: int | None = None
    moved: int = 0
    positions: int = 0
    a: tuple = ()  # the two runs' descriptions: (string key, parameters)
    b: tuple = ()
    error: str | None = None  # the run the model refused (status skipped)
    location: dict | None = None
    label: tuple = ()  # (string key, parameters); `name` is its id


@dataclass
class InvarianceResult:
    name: str
    status: str
    cases: list[CaseResult] = field(default_factory=list)
    #: (string key, params) of why it was skipped
    reason: tuple[str, dict] | None = None
    notes: list[tuple[str, dict]] = field(default_factory=list)

    @property
    def max_diff(self) -> float | None:
        values = [c.max_diff for c in self.cases if c.max_diff is not None]
        return max(values) if values else None

    @property
    def tolerance(self) -> float | None:
        values = [c.tolerance for c in self.cases if c.tolerance is not None]
        return min(values) if values else None


@dataclass
class ProbeReport:
    model: str
    implementation: str | None
    dtype: str
    tokens: int
    seed: int
    causal: bool
    results: list[InvarianceResult] = field(default_factory=list)
    folder: str | None = None  # where broken invariances' runs were captured

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    @property
    def exit_code(self) -> int:
        return 1 if self.count("broken") else 0

    def __getitem__(self, name: str) -> InvarianceResult:
        return next(r for r in self.results if r.name == name)

    def __str__(self) -> str:
        return "\n".join(lines(self, "en"))

    def to_json(self, lang: str = "en") -> dict:
        return to_json(self, lang)

    def to_html(self, lang: str = "en") -> str:
        """The report as a notebook shows it (render.notebook): the printed
        lines, each invariance's in its status's colour beside its word."""
        from maskattn_tui.render.notebook import probe_html

        text = lines(self, lang)
        status = {r.name: r.status for r in self.results}
        rows = [(status.get(line.split()[0]) if line.startswith("  ") and not line.startswith("   ") else None, line)
                for line in text[1:-1]]
        return probe_html(text[0], rows, text[-1])

    def _repr_html_(self) -> str:  # Jupyter: in the environment's language
        from maskattn_tui.i18n import lang_from_env

        return self.to_html(lang_from_env())


def _num(x: float | None) -> str:
    return "-" if x is None else "0" if x == 0 else f"{x:.2g}"


def _status(status: str, lang: str) -> str:
    return t(f"probe.status.{status}", lang)


def lines(report: ProbeReport, lang: str) -> list[str]:
    out = [t("probe.head", lang, model=report.model, impl=report.implementation or "-", dtype=report.dtype,
             tokens=report.tokens, seed=report.seed,
             kind=t("probe.kind.causal" if report.causal else "probe.kind.encoder", lang))]
    width = max(len(r.name) for r in report.results) if report.results else 8
    for r in report.results:
        status = _status(r.status, lang)
        head = f"  {r.name:<{width}}  {status}{' ' * max(1, 9 - cell_width(status))}"
        if r.status == "skipped" and r.reason is not None:
            out.append(head + t(r.reason[0], lang, **r.reason[1]))
        else:
            cases = ", ".join(f"{_text(c.label, lang)}: {_num(c.max_diff)}" if c.status != "skipped" else
                              f"{_text(c.label, lang)}: {_status('skipped', lang)}" for c in r.cases)
            out.append(head + t("probe.line", lang, diff=_num(r.max_diff), tol=_num(r.tolerance),
                                rtol=_num(r.cases[0].rtol if r.cases else None), cases=cases))
        for key, params in r.notes:
            out.append("      " + t(key, lang, **params))
        for c in r.cases:
            out += _case_lines(c, lang)
    out.append(t("probe.summary", lang, held=report.count("held"), broken=report.count("broken"),
                 skipped=report.count("skipped"), code=report.exit_code))
    return out


def _case_lines(c: CaseResult, lang: str) -> list[str]:
    if c.status == "skipped":
        return ["      " + t("probe.case.failed", lang, case=_text(c.label, lang), b=_text(c.b, lang),
                                error=c.error or "-")]
    if c.status != "broken":
        return []
    out = ["      " + t("probe.case.broken", lang, case=_text(c.label, lang), a=_text(c.a, lang), b=_text(c.b, lang),
                        moved=c.moved, total=c.positions,
                        first=c.first_position, diff=_num(c.max_diff))]
    if c.location is None:  # an invariance is located at its first broken case
        return out + ["        " + t("probe.where.as_above", lang)]
    where = c.location
    layer = where.get("layer")
    out.append("        " + (t("probe.where.layer", lang, module=layer["module"], position=layer["position"],
                                 diff=_num(layer["max_diff"])) if layer else t("probe.where.no_layer", lang)))
    call = where.get("call")
    runs = where.get("runs", {})
    if call is not None:
        if where.get("same_masks"):
            out.append("        " + t("probe.where.same_masks", lang, call=call["call"], site=call["site"] or "-",
                                        step=_text(call["step"], lang)))
        else:
            out.append("        " + t("probe.where.call", lang, call=call["call"], site=call["site"] or "-",
                                        step=_text(call["step"], lang), a_call=call["a_call"],
                                        positions=_positions(call["positions"]),
                                        only_b=_keys(call["only_b"], lang), only_a=_keys(call["only_a"], lang)))
        out.append("        " + t("probe.where.doctor", lang, reading=_reading(runs.get("b"), call["hash"], lang)))
        if not where.get("same_masks") and call.get("a_hash") != call["hash"]:
            first = _reading(runs.get("a"), call["a_hash"], lang)
            out.append("        " + t("probe.where.doctor_a", lang, reading=first))
        out.append("        " + t("probe.where.open", lang, command=open_command(runs["b"], call),
                                    folder=_q(runs["b"])))
    elif runs:
        out.append("        " + t("probe.where.no_call", lang, folder=_q(runs.get("b", ""))))
    for side in ("a", "b"):
        for f in (where.get("findings") or {}).get(side, []):
            level = t("doctor.level." + f["level"], lang)
            out.append("        " + t("probe.where.finding", lang, run=side, level=level, message=_finding(f, lang)))
    if runs:
        out.append("        " + t("probe.where.runs", lang, a=runs["a"], b=runs["b"]))
    return out


def _text(described: tuple, lang: str) -> str:
    """A (string key, parameters) pair in the user's language ("" for none)."""
    return t(described[0], lang, **described[1]) if described else ""


def _positions(positions: list[int]) -> str:
    return ", ".join(map(str, positions[:8])) + (" …" if len(positions) > 8 else "")


def _keys(keys: list, lang: str) -> str:
    if not keys:
        return t("probe.where.none", lang)
    return ", ".join(t("probe.where.other", lang) if k == "other" else str(k) for k in keys[:10]) + \
        (" …" if len(keys) > 10 else "")


def _q(path: str) -> str:
    return shlex.quote(path)


def open_command(folder: str, call: dict) -> str:
    """Mask mode on the named call's table: the capture folder at that call
    (n / N step on through the run's other calls)."""
    return f"maskattn-tui --mask {_q(folder)} --call {call['call']}"


def _reading(folder: str | None, digest: str, lang: str) -> str:
    from maskattn_tui.probe.locate import reading

    return reading(folder, digest, lang) if folder else "-"


def _finding(f: dict, lang: str) -> str:
    from maskattn_tui.capture.doctor import finding_text

    return finding_text(f, lang)


def to_json(report: ProbeReport, lang: str) -> dict:
    return {
        "schema": SCHEMA, "model": report.model, "implementation": report.implementation, "dtype": report.dtype,
        "tokens": report.tokens, "seed": report.seed, "causal": report.causal, "folder": report.folder,
        "invariances": [_invariance_json(r, lang) for r in report.results],
        "held": report.count("held"), "broken": report.count("broken"), "skipped": report.count("skipped"),
        "exit": report.exit_code,
    }


def _invariance_json(r: InvarianceResult, lang: str) -> dict:
    return {"name": r.name, "status": r.status,
            "reason": t(r.reason[0], lang, **r.reason[1]) if r.reason else None,
            "reason_code": r.reason[0].rpartition(".")[2] if r.reason else None,
            "notes": [t(k, lang, **p) for k, p in r.notes],
            "max_diff": _finite(r.max_diff), "tolerance": r.tolerance,
            "cases": [_case_json(c, lang) for c in r.cases]}


def _finite(x: float | None) -> float | None:
    """JSON has no infinity: a NaN on one side only is null (the text says inf)."""
    return x if x is None or x == x and abs(x) != float("inf") else None


def _case_json(c: CaseResult, lang: str) -> dict:
    out = {"case": c.name, "label": _text(c.label, lang), "status": c.status, "a": _text(c.a, lang),
           "b": _text(c.b, lang), "max_diff": _finite(c.max_diff),
           "tolerance": c.tolerance, "rtol": c.rtol, "scale": c.scale, "first_position": c.first_position,
           "moved": c.moved, "positions": c.positions, "error": c.error, "location": None}
    where = c.location
    if where is not None:
        call = where.get("call")
        if call is not None:
            call = {**call, "step": _text(call["step"], lang),
                    "reading": _reading(where["runs"]["b"], call["hash"], lang),
                    "a_reading": _reading(where["runs"]["a"], call["a_hash"], lang) if call.get("a_hash") else None,
                    "open": open_command(where["runs"]["b"], call)}
        out["location"] = {
            "runs": where["runs"], "layer": where.get("layer"), "call": call, "same_masks": where.get("same_masks"),
            "findings": {side: [{**f, "message": _finding(f, lang)} for f in found]
                         for side, found in (where.get("findings") or {}).items()}}
    return out
