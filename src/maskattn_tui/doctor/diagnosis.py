"""`diagnose(mask)`: what a 2-D attention mask says, and what is wrong with
it. Pure (numpy only): the CLI prints it, the TUI can show it.

    from maskattn_tui.doctor import diagnose, load_mask
    mask, info = load_mask("mask.npy")
    d = diagnose(mask, source=info)
    d.polarity, d.alignment, d.window, [f.code for f in d.findings]

A few streaming passes over row bands (never a Python loop per cell): the
values (for numeric masks), the row statistics, the rule comparisons (by
arithmetic where rows are one run of keys, re-reading the others).

Polarity first: an additive mask is always 0 = visible; a bool or 0/1 mask
is read both ways and the polarity whose best reading is simpler wins, True
= attend (SDPA's and HF's convention) on a tie, said as an assumption
(`polarity_assumed`). Then every family's reading is scored (doctor.readings):
the least description plus differing cells wins, unless an exact reading
costs at most EXACT_SLACK more (then it does, the other is named); equally
simple ones are `alternatives`."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from maskattn_tui.doctor.alignment import Alignment, decide, score
from maskattn_tui.doctor.compare import CELL_LIMIT
from maskattn_tui.doctor.findings import Finding, findings_of, pad_query_rows
from maskattn_tui.doctor.patterns import Fit
from maskattn_tui.doctor.readings import EXACT_SLACK, Scored, best_readings
from maskattn_tui.doctor.advice import checked_advice
from maskattn_tui.doctor.representation import Reading, Representation, check_array, classify, used_as
from maskattn_tui.doctor.rows import column_counts, inverted, scan
from maskattn_tui.errors import MaskattnError


@dataclass(frozen=True)
class Diagnosis:
    shape: tuple[int, int]
    representation: Representation
    alignment: Alignment
    fit: Fit
    empty_rows: tuple[int, ...]  # at most CELL_LIMIT
    empty_row_count: int
    pad_query_rows: tuple[int, ...]
    pad_query_row_count: int
    findings: tuple[Finding, ...]
    #: the API the mask looks meant for: sdpa | mha | additive | int01 | float01
    api: str
    #: the chosen reading's family (doctor.families): causal, static-cache, ...
    family: str = "causal"
    #: other readings as simple as the chosen one (each a doctor.readings.Scored)
    alternatives: tuple = ()
    #: no evidence told True = attend from True = blocked: the prior was used
    polarity_assumed: bool = False

    @property
    def polarity(self) -> str:
        return self.alignment.polarity

    def to_html(self, lang: str = "en") -> str:
        """What the doctor read and its findings, as a notebook shows them
        (render.notebook: print's line blocks, coloured, each level's word beside)."""
        from maskattn_tui.render.notebook import diagnosis_html

        return diagnosis_html(self, lang)

    def _repr_html_(self) -> str:  # Jupyter: in the environment's language
        from maskattn_tui.i18n import lang_from_env

        return self.to_html(lang_from_env())

    @property
    def offset(self) -> int:
        return self.alignment.offset

    @property
    def rule(self):
        return self.fit.rule

    @property
    def leaks(self) -> tuple[tuple[int, int], ...]:
        return self.fit.comparison.leaks

    @property
    def leak_count(self) -> int:
        return self.fit.comparison.leak_count

    @property
    def unused_slots(self) -> tuple[int, int] | None:
        """A static cache's unused slots as [start, stop), or None."""
        rule = self.fit.rule
        return (rule.keys - rule.unused, rule.keys) if rule.unused else None

    @property
    def pad_runs(self) -> tuple[tuple[int, int], ...]:
        """Every run of PAD keys [start, stop): the left or right one and the gaps."""
        runs = ([self.pad_keys] if self.pad_keys is not None else []) + list(self.fit.rule.gaps)
        return tuple(sorted(runs))

    @property
    def pad_keys(self) -> tuple[int, int] | None:
        """PAD keys as [start, stop), or None."""
        rule = self.fit.rule
        if not rule.pad:
            return None
        return (0, rule.pad) if rule.pad_side == "left" else (rule.keys - rule.pad, rule.keys)

    @property
    def pad_side(self) -> str | None:
        return self.fit.rule.pad_side if self.fit.rule.pad else None

    @property
    def window(self) -> int | None:
        return self.fit.rule.window

    @property
    def chunk(self) -> int | None:
        return self.fit.rule.chunk

    @property
    def prefix(self) -> int | None:
        return self.fit.rule.prefix

    @property
    def documents(self) -> tuple[int, ...] | None:
        rule = self.fit.rule
        if rule.chunk is not None:
            return chunk_lengths(rule.keys, rule.chunk, rule.chunk_origin)
        return rule.documents

    @property
    def tree(self) -> tuple[int, ...] | None:
        return self.fit.rule.tree

    def codes(self) -> list[str]:
        return [f.code for f in self.findings]


def chunk_lengths(keys: int, chunk: int, origin: int = 0) -> tuple[int, ...]:
    """Lengths of the runs of positions in one chunk; chunks start at
    origin + m * chunk (doctor.rules: the first real token with left PAD)."""
    edges = [0, *range(origin % chunk or chunk, keys, chunk), keys]
    return tuple(b - a for a, b in zip(edges, edges[1:]))


def _api(rep: Representation, polarity: str) -> str:
    if rep.kind == "bool":
        return "sdpa" if polarity == "attend" else "mha"
    if rep.kind in ("int01", "float01") and rep.reading != "additive":
        return rep.kind
    return "additive" if rep.reading == "additive" else "sdpa"


def _checked(mask, name: str) -> np.ndarray:
    mask = mask if isinstance(mask, np.ndarray) else np.asarray(mask)
    if mask.ndim != 2:
        raise MaskattnError("doctor_dims_2d", file=name, ndim=mask.ndim)
    check_array(mask, name)
    return mask


def _capped(index: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in index[:CELL_LIMIT])


def alignment_name(rule) -> str:
    """How a rule's rows sit on its keys: none, bottom-right, top-left or offset."""
    if not rule.causal and rule.tree is None:
        return "none"
    if rule.offset == rule.keys - rule.rows:
        return "bottom-right"
    return "top-left" if rule.offset == 0 else "offset"


def _identical_rows(stats) -> bool:
    """Every row sees the same one run of keys: nothing shows a causal order."""
    return (stats.lo.size > 1 and not stats.empty.any() and bool(stats.contiguous.all())
            and bool((stats.lo == stats.lo[0]).all()) and bool((stats.hi == stats.hi[0]).all()))


def diagnose(mask, polarity: str | None = None, source=None, float_mask: str | None = None,
             check_advice: bool = True) -> Diagnosis:
    """Diagnose a 2-D mask (L queries x S keys; numpy array or memmap).
    `polarity` ("attend"/"blocked") overrides the decided one; `source` (the
    MaskInfo from load_mask) adds its shape warnings; `float_mask` ("keep" /
    "added") says how the API uses a float 0/1 mask; `check_advice`: read
    the table each fix gives before advising it (doctor.advice)."""

    name = str(getattr(source, "path", "") or "mask")
    mask = _checked(mask, name)
    rows, keys = mask.shape
    rep = used_as(classify(mask, name), float_mask)
    raw = Reading(mask, rep, "attend")
    raw_stats = scan(raw)
    inv_stats = inverted(raw_stats, raw.flipped())
    decided = decide(raw_stats, inv_stats, rows, keys, polarity)
    both = {"attend": (raw, raw_stats), "blocked": (raw.flipped(), inv_stats)}
    # additive: 0 is visible in every API, so never read the other way
    tried = [polarity] if polarity else (["attend"] if rep.reading == "additive" else ["attend", "blocked"])
    per_key = column_counts(raw_stats, raw)  # keys each polarity sees, from one reading
    counts = {"attend": per_key, "blocked": rows - per_key}
    found: dict[str, list[Scored]] = {}
    bound = None
    for pol in tried:
        found[pol] = best_readings(*both[pol], bound, seen=counts[pol] > 0, counts=counts[pol])
        if found[pol]:
            bound = found[pol][0].score
    # polarity and family together: the simplest reading over both; on a tie the
    # diagonal decides (alignment.decide, rows on their own position), else the prior
    voted = decided.polarity if rows > 1 and decided.alignment != "none" and decided.score == 1.0 else None
    chosen = min((p for p in tried if found[p]), key=lambda p: (found[p][0].score, p != voted, tried.index(p)))
    tie = len(tried) == 2 and all(found[p] for p in tried) and found["attend"][0].score == found["blocked"][0].score
    assumed = tie and voted is None
    ranked = found[chosen]
    stored = tuple(getattr(source, "shape", ()) or ())
    decoder = getattr(source, "format", None) == "hf-pair"  # built by a causal rule: its reading stays first
    if (rows == 1 and len(stored) >= 3 and stored[-2] == 1) or (_identical_rows(both[chosen][1]) and not decoder):
        # broadcast to every query, or every row alike: key padding (no causal rule) first
        ranked = sorted(ranked, key=lambda s: (s.score, s.rule.causal))
    best, *others = ranked
    if not best.exact:  # an exact reading a little less simple wins (either polarity, this one first):
        for pol in sorted(tried, key=lambda p: p != chosen):  # a correct mask is never called broken
            exact = best_readings(*both[pol], best.score + EXACT_SLACK, exact_only=True, seen=counts[pol] > 0,
                                  counts=counts[pol])[:1]
            if exact:
                best, others = exact[0], ([best, *others] if pol == chosen else [])
                assumed, chosen = assumed and pol == chosen, pol
                break
    reading, stats = both[chosen]
    inverted_fit = None
    if rep.reading == "additive" and polarity is None and not best.exact:  # -inf where 0 belongs?
        flipped = best_readings(*both["blocked"], best.score - 1, seen=counts["blocked"] > 0,
                                counts=counts["blocked"])
        inverted_fit = flipped[0] if flipped and flipped[0].exact else None
    rule = best.rule
    alignment = Alignment(chosen, alignment_name(rule), int(rule.offset),
                          score(stats, int(rule.offset)) if rule.causal else 0.0, decided.scores)
    fit = Fit(best.name, rule, best.comparison)
    empty = np.flatnonzero(stats.empty)
    pad_query = np.flatnonzero(pad_query_rows(rule, stored))
    api = _api(rep, chosen)
    diag = Diagnosis((rows, keys), rep, alignment, fit, _capped(empty), int(empty.size), _capped(pad_query),
                     int(pad_query.size), (), api, best.family, tuple(others), assumed)
    findings = findings_of(diag, reading, stats, empty, pad_query, source, inverted_fit, float_mask, stored)
    if check_advice:
        findings = checked_advice(findings, diag, reading, lambda table: diagnose(table, "attend",
                                                                                  check_advice=False))
    return replace(diag, findings=tuple(findings))
