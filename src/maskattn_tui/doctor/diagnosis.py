"""`diagnose(mask)`: what a 2-D attention mask says, and what is wrong with
it. Pure (numpy only): the CLI prints it, the TUI can show it.

    from maskattn_tui.doctor import diagnose, load_mask
    mask, info = load_mask("mask.npy")
    d = diagnose(mask, source=info)
    d.polarity, d.alignment, d.window, [f.code for f in d.findings]

A few streaming passes over row bands (never a Python loop per cell): the
values (for numeric masks), the row statistics, the rule comparison (by
arithmetic where rows are one run of keys, re-reading the others)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from maskattn_tui.doctor.alignment import Alignment, decide
from maskattn_tui.doctor.compare import CELL_LIMIT, Comparison, compare
from maskattn_tui.doctor.patterns import Fit, best_fit
from maskattn_tui.doctor.representation import Reading, Representation, check_array, classify
from maskattn_tui.doctor.rows import RowStats, inverted, scan
from maskattn_tui.errors import MaskattnError


@dataclass(frozen=True)
class Finding:
    code: str
    level: str  # error | warning | info
    cells: tuple = ()  # evidence: (row, key) pairs, at most CELL_LIMIT
    count: int = 0  # how many cells (or rows) in all
    params: dict = field(default_factory=dict)  # for the message


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

    @property
    def polarity(self) -> str:
        return self.alignment.polarity

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
    if rep.kind in ("int01", "float01"):
        return rep.kind
    return "additive" if rep.reading == "additive" else "sdpa"


def _first_hidden(reading: Reading, limit: int = CELL_LIMIT) -> tuple[tuple[int, int], ...]:
    """The first hidden cells (row-major), reading as few bands as needed."""
    out: list = []
    for r0, _, band in reading.bands():
        rows, keys = np.nonzero(~band)
        out.extend((int(r) + r0, int(k)) for r, k in zip(rows[:limit], keys[:limit]))
        if len(out) >= limit:
            break
    return tuple(out[:limit])


def _capped(index: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in index[:CELL_LIMIT])


def _checked(mask, name: str) -> np.ndarray:
    mask = mask if isinstance(mask, np.ndarray) else np.asarray(mask)
    if mask.ndim != 2:
        raise MaskattnError("doctor_dims_2d", file=name, ndim=mask.ndim)
    check_array(mask, name)
    return mask


def diagnose(mask, polarity: str | None = None, source=None) -> Diagnosis:
    """Diagnose a 2-D mask (L queries x S keys; numpy array or memmap).
    `polarity` ("attend"/"blocked") overrides the decided one; `source` (the
    MaskInfo from load_mask) adds its shape warnings."""
    name = str(getattr(source, "path", "") or "mask")
    mask = _checked(mask, name)
    rows, keys = mask.shape
    rep = classify(mask, name)
    raw = Reading(mask, rep, "attend")
    raw_stats = scan(raw)
    inv_stats = inverted(raw_stats, raw.flipped())
    align = decide(raw_stats, inv_stats, rows, keys, polarity)
    reading = raw if align.polarity == "attend" else raw.flipped()
    stats = raw_stats if align.polarity == "attend" else inv_stats
    fit = best_fit(reading, stats, align.offset, causal=align.alignment != "none")
    if align.alignment == "none":  # few rows end on their own key: is it causal with many leaks?
        align, fit = _causal_after_all(reading, stats, align, fit)
    empty = np.flatnonzero(stats.empty)
    own = np.arange(rows) + align.offset
    pad_rows = np.zeros(rows, dtype=bool)
    if fit.rule.pad:
        start = 0 if fit.rule.pad_side == "left" else keys - fit.rule.pad
        pad_rows = (own >= start) & (own < start + fit.rule.pad)
    pad_query = np.flatnonzero(pad_rows)
    api = _api(rep, align.polarity)
    findings = _findings(reading, stats, rep, align, fit, empty, pad_query, source)
    return Diagnosis((rows, keys), rep, align, fit, _capped(empty), int(empty.size), _capped(pad_query),
                     int(pad_query.size), tuple(findings), api)


def _causal_after_all(reading: Reading, stats: RowStats, align: Alignment, fit: Fit) -> tuple[Alignment, Fit]:
    """The best causal reading of this polarity, if it differs from the mask
    in no more cells than the best bidirectional one (e.g. tril(ones, 1):
    every row sees one future key, so no row ends on its own key; or a
    decoding step whose last key is PAD)."""
    name = max((s for s in align.scores if s[0] == align.polarity), key=lambda s: s[2])[1]
    offset = reading.keys - reading.rows if name == "bottom-right" else 0
    causal = best_fit(reading, stats, offset, causal=True)
    if causal.comparison.count <= fit.comparison.count:
        return replace(align, alignment=name, offset=offset), causal
    return align, fit


def _diagonal_cells(rows: np.ndarray, offset: int) -> tuple[tuple[int, int], ...]:
    return tuple((int(r), int(r) + offset) for r in rows[:CELL_LIMIT])


def _findings(reading: Reading, stats: RowStats, rep: Representation, align: Alignment, fit: Fit,
              empty: np.ndarray, pad_query: np.ndarray, source) -> list[Finding]:
    rows, keys = reading.rows, reading.keys
    out: list[Finding] = []
    if source is not None and getattr(source, "per_head_broadcast", False):
        out.append(Finding("per-head-broadcast", "warning", count=source.shape[0],
                           params={"n": source.shape[0], "shape": "x".join(map(str, source.shape))}))
    if rep.kind == "float01":
        hidden = _first_hidden(reading)
        out.append(Finding("float-keep-mask", "error", hidden, int(rows * keys - stats.count.sum())))
    elif rep.kind == "additive-finite":
        cells = _diagonal_cells(empty, 0)
        params = {"minimum": f"{rep.minimum:.6g}", "dtype": rep.minimum_dtype or "?"}
        if empty.size:
            params["variant"] = "empty"
        out.append(Finding("finite-min", "warning" if empty.size else "info", cells, int(empty.size), params))
    elif rep.kind == "mixed":
        out.append(Finding("mixed-values", "warning"))
    if align.polarity == "blocked":
        out.append(Finding("true-means-blocked" if rep.kind == "bool" else "inverted",
                           "info" if rep.kind == "bool" else "error"))
    if align.alignment == "top-left" and rows != keys:
        right = compare(reading, stats, fit.rule.replace(offset=keys - rows))
        out.append(Finding("top-left", "error", right.cells, right.count,
                           {"past": keys - rows, "rows": rows, "keys": keys}))
    if align.alignment == "none":
        out.append(Finding("bidirectional", "info"))
    comparison = fit.comparison
    if comparison.leak_count:
        out.append(Finding("leak", "error", comparison.leaks, comparison.leak_count,
                           {} if fit.name == "causal" and not fit.rule.pad else {"variant": "rule"}))
    if comparison.count > comparison.leak_count:
        out.append(Finding("closest-rule", "warning", comparison.cells, comparison.count))
    if empty.size:
        out.append(Finding("empty-rows", "warning", _diagonal_cells(empty, align.offset), int(empty.size),
                           {"rows": _rows_text(empty)}))
    if pad_query.size:
        out.append(Finding("pad-query-rows", "warning", _diagonal_cells(pad_query, align.offset),
                           int(pad_query.size), {"rows": _rows_text(pad_query)}))
    rule = fit.rule
    if rule.window is not None:
        out.append(Finding("window", "info", params={"w": rule.window, "w1": rule.window - 1}))
    if rule.chunk is not None:
        out.append(Finding("chunk", "info", params={"c": rule.chunk}))
    if rule.documents is not None:
        out.append(Finding("documents", "info", params={"lengths": ",".join(map(str, rule.documents))}))
    if rule.prefix is not None:
        out.append(Finding("prefix", "info", params={"p": rule.prefix}))
    if rule.tree is not None:
        out.append(Finding("tree", "info", params={"parents": ",".join(map(str, rule.tree[:CELL_LIMIT])),
                                                   "past": rule.offset}))
    return out


def _rows_text(index: np.ndarray) -> str:
    """Rows as short ranges: "0-3, 7" (at most CELL_LIMIT ranges)."""
    if index.size == 0:
        return ""
    breaks = np.flatnonzero(np.diff(index) != 1)
    starts = np.concatenate(([index[0]], index[breaks + 1]))
    ends = np.concatenate((index[breaks], [index[-1]]))
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in zip(starts[:CELL_LIMIT], ends[:CELL_LIMIT])]
    return ", ".join(parts) + (", ..." if starts.size > CELL_LIMIT else "")


