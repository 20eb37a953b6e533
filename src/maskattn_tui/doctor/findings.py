"""What the doctor says about a diagnosed mask: the findings, each with a
level. Error is kept for what no simple reading explains (or that breaks
in every API); when several readings fit as simply, nothing that only one
of them supports is an error, and the `readings` finding names them all."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from maskattn_tui.doctor.compare import CELL_LIMIT, compare
from maskattn_tui.doctor.representation import Reading, Representation
from maskattn_tui.doctor.rows import RowStats

TYPE_CHECKING = False  # Diagnosis names the annotations only (diagnosis imports this module)
if TYPE_CHECKING:
    from maskattn_tui.doctor.diagnosis import Diagnosis


@dataclass(frozen=True)
class Finding:
    code: str
    level: str  # error | warning | info
    cells: tuple = ()  # evidence: (row, key) pairs, at most CELL_LIMIT
    count: int = 0  # how many cells (or rows) in all
    params: dict = field(default_factory=dict)  # for the message
    #: advice to change the mask: the table (True = may read) its fix gives, made
    #: on demand; doctor.advice reads it before the advice is given as such
    fix: object = field(default=None, compare=False, repr=False)


#: A fix's table is built and read only up to this many cells (beyond, the
#: rule's own table is trusted).
FIX_CELLS = 1 << 22


def _rows_text(index: np.ndarray) -> str:
    """Rows as short ranges: "0-3, 7" (at most CELL_LIMIT ranges)."""
    if index.size == 0:
        return ""
    breaks = np.flatnonzero(np.diff(index) != 1)
    starts = np.concatenate(([index[0]], index[breaks + 1]))
    ends = np.concatenate((index[breaks], [index[-1]]))
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in zip(starts[:CELL_LIMIT], ends[:CELL_LIMIT])]
    return ", ".join(parts) + (", ..." if starts.size > CELL_LIMIT else "")


def _first_hidden(reading: Reading, limit: int = CELL_LIMIT) -> tuple[tuple[int, int], ...]:
    """The first hidden cells (row-major), reading as few bands as needed."""
    out: list = []
    for r0, _, band in reading.bands():
        rows, keys = np.nonzero(~band)
        out.extend((int(r) + r0, int(k)) for r, k in zip(rows[:limit], keys[:limit]))
        if len(out) >= limit:
            break
    return tuple(out[:limit])


def _diagonal_cells(rows: np.ndarray, offset: int) -> tuple[tuple[int, int], ...]:
    return tuple((int(r), int(r) + offset) for r in rows[:CELL_LIMIT])


def _runs_text(runs) -> str:
    return ", ".join(f"{a}" if b - a == 1 else f"{a}-{b - 1}" for a, b in runs[:CELL_LIMIT])


def _representation(diag: Diagnosis, reading: Reading, stats: RowStats, empty: np.ndarray,
                    float_mask: str | None) -> list[Finding]:
    rep, (rows, keys) = diag.representation, diag.shape
    if rep.kind == "float01" and float_mask != "keep":
        keep = Reading(reading.mask, Representation("float01"), "attend")  # 1.0 kept, 0.0 hidden
        hidden = sum(int(np.count_nonzero(~band)) for _, _, band in keep.bands())  # meant hidden
        if rep.reading == "additive":  # --float-mask added: it hides nothing, every cell is visible
            return [Finding("float-keep-mask", "error", _first_hidden(keep), hidden, {"variant": "added"},
                            fix=lambda: keep.band(0, rows))]
        return [Finding("float-keep-mask", "warning", _first_hidden(keep), hidden, {"variant": "two"})]
    if rep.kind in ("bias", "bias-mask"):
        return [Finding("bias", "info", params={"variant": rep.kind})]
    if rep.kind == "additive-finite":
        params = {"minimum": f"{rep.minimum:.6g}", "dtype": rep.minimum_dtype or "?"}
        if empty.size:
            params["variant"] = "empty"
        out = [Finding("finite-min", "warning" if empty.size else "info", _diagonal_cells(empty, 0),
                       int(empty.size), params)]
        if rep.overflow:
            out.append(Finding("finite-min-overflow", "warning", params={"minimum": params["minimum"]}))
        return out
    if rep.kind == "mixed":
        return [Finding("mixed-values", "warning")]
    return []


def _polarity(diag: Diagnosis, inverted_fit) -> list[Finding]:
    out = []
    if diag.polarity_assumed:
        out.append(Finding("polarity-assumed", "info"))
    if diag.polarity == "blocked":
        if diag.representation.kind == "bool":
            out.append(Finding("true-means-blocked", "info"))
        else:  # an API reading 1 as blocked would be broken by flipping it: not an error
            out.append(Finding("inverted", "warning"))
    if inverted_fit is not None:
        out.append(Finding("inverted", "error", params={"variant": "additive"}))
    return out


def _shape(diag: Diagnosis, source) -> list[Finding]:
    out = []
    if source is not None and getattr(source, "per_head_broadcast", False):
        out.append(Finding("per-head-broadcast", "warning", count=source.shape[0],
                           params={"n": source.shape[0], "shape": "x".join(map(str, source.shape))}))
    stored = tuple(getattr(source, "shape", ()) or ())
    if len(stored) >= 3 and stored[-2] == 1 and diag.shape[0] == 1 and diag.shape[1] > 1:
        out.append(Finding("broadcast-rows", "info", params={"shape": "x".join(map(str, stored))}))
    return out


def _family(diag: Diagnosis, reading: Reading, stats: RowStats) -> list[Finding]:
    rule, (rows, keys), align = diag.rule, diag.shape, diag.alignment
    out = []
    if align.alignment == "top-left" and keys > rows:
        right = compare(reading, stats, rule.replace(offset=keys - rows))
        out.append(Finding("top-left", "warning", right.cells, right.count,
                           {"past": keys - rows, "rows": rows, "keys": keys, "unused": rule.unused}))
    elif diag.family == "static-cache":
        out.append(Finding("static-cache", "info", params={
            "filled": rule.offset, "rows": rows, "unused": rule.unused,
            "first": keys - rule.unused, "last": keys - 1, "keys": keys}))
    if diag.family in ("bidirectional", "cross-attention"):
        out.append(Finding(diag.family, "info", params={"rows": rows, "keys": keys}))
    return out


def _leak_fix(diag: Diagnosis, reading: Reading):
    """The table "set the leaked cells to hidden" gives: the mask's own
    reading with every visible future cell the rule hides taken out."""
    rows, keys = diag.shape
    if rows * keys > FIX_CELLS:
        return None
    rule = diag.rule

    def make() -> np.ndarray:
        got, want = reading.band(0, rows), rule.table_rows(slice(0, rows))
        future = np.arange(keys)[None, :] > rule.positions(slice(None))[:, None]
        return got & ~(~want & future)
    return make


def _differences(diag: Diagnosis, reading: Reading) -> list[Finding]:
    comparison, fit = diag.fit.comparison, diag.fit
    out = []
    if comparison.leak_count:
        # an error only if every reading as simple as this one has leaks
        level = "error" if all(s.comparison.leak_count for s in diag.alternatives) else "warning"
        out.append(Finding("leak", level, comparison.leaks, comparison.leak_count,
                           {} if fit.name == "causal" and not fit.rule.pad else {"variant": "rule"},
                           fix=_leak_fix(diag, reading)))
    if comparison.count > comparison.leak_count:
        # no reading fits: an error when the closest differs in a few cells (a defect),
        # a warning when in many (a family the doctor does not know)
        few = (comparison.count - comparison.leak_count) * 20 <= max(_visible_cells(diag), 20)
        exact = any(s.exact for s in diag.alternatives)
        out.append(Finding("closest-rule", "error" if few and not exact else "warning", comparison.cells,
                           comparison.count))
    return out


def _visible_cells(diag: Diagnosis) -> int:
    """Cells the chosen rule shows (from its runs when it has them)."""
    runs = diag.rule.intervals()
    if runs is None:
        rows = diag.shape[0]
        return int(diag.rule.table_rows(slice(0, rows)).sum()) if rows * diag.shape[1] <= FIX_CELLS else rows
    lo, hi = runs
    return int(np.maximum(0, hi - lo + 1).sum())


def pad_query_rows(rule, stored: tuple = ()) -> np.ndarray:
    """Which query rows sit at PAD positions: a causal reading's rows sit at
    their own positions; a reading without causal order over as many rows as
    keys is one sequence's self-attention (an encoder), row r its token r; a
    broadcast row ([B, 1, 1, S]) or cross-attention has none."""
    rows, keys = rule.rows, rule.keys
    broadcast = rows == 1 and tuple(stored)[-2:-1] == (1,)
    if not (rule.causal or rule.tree is not None or (rows == keys and not broadcast)):
        return np.zeros(rows, dtype=bool)
    return rule._pad_query(np.arange(rows) + rule.offset)


def _consequences_differ(diag: Diagnosis, stored: tuple) -> bool:
    """Do the equally simple readings tell the user different things (which
    query rows are PAD, which cells leak)? If not, naming them is information."""
    pads = pad_query_rows(diag.rule, stored)
    return any(s.comparison.leak_count != diag.leak_count or not np.array_equal(pad_query_rows(s.rule, stored), pads)
               for s in diag.alternatives)


def pad_rows_are_the_empty_rows(empty: np.ndarray, pad_query: np.ndarray) -> bool:
    """Left-padded HF eager masks: the rows with no key are exactly the PAD
    queries (said once, not as three findings about the same rows)."""
    return bool(empty.size) and np.array_equal(np.sort(empty), np.sort(pad_query))


def _rows(diag: Diagnosis, empty: np.ndarray, pad_query: np.ndarray) -> list[Finding]:
    out = []
    offset = diag.offset
    if pad_rows_are_the_empty_rows(empty, pad_query):
        level = "info" if diag.alternatives else "warning"
        return [Finding("pad-query-rows", level, _diagonal_cells(pad_query, offset), int(pad_query.size),
                        {"rows": _rows_text(pad_query), "variant": "empty"})]
    if empty.size:
        out.append(Finding("empty-rows", "warning", _diagonal_cells(empty, offset), int(empty.size),
                           {"rows": _rows_text(empty)}))
    if pad_query.size:  # queries at PAD positions: info if other readings fit too, or in an encoder
        encoder = not diag.rule.causal
        out.append(Finding("pad-query-rows", "info" if diag.alternatives or encoder else "warning",
                           _diagonal_cells(pad_query, offset), int(pad_query.size),
                           {"rows": _rows_text(pad_query), "variant": "encoder" if encoder else None}))
    return out


def _pattern(diag: Diagnosis) -> list[Finding]:
    rule = diag.rule
    out = []
    if rule.window is not None and rule.causal and not rule.globals:  # (with globals: told below)
        out.append(Finding("window", "info", params={"w": rule.window, "w1": rule.window - 1}))
    elif rule.window is not None and not rule.globals:
        left, right = rule.window - 1, rule.right_width
        out.append(Finding("two-sided-window", "info",
                           params={"left": left, "right": right, "hf": left if left == right else "-",
                                   "variant": None if left == right else "asymmetric"}))
    if rule.chunk is not None:
        out.append(Finding("chunk", "info", params={"c": rule.chunk}))
    if rule.documents is not None:
        out.append(Finding("documents", "info", params={"lengths": ",".join(map(str, rule.documents)),
                                                        "variant": None if rule.causal else "encoder"}))
    if rule.globals and rule.causal:
        out.append(Finding("sinks", "info", count=sum(b - a for a, b in rule.globals),
                           params={"runs": _runs_text(rule.globals), "w": rule.window}))
    elif rule.globals:
        out.append(Finding("globals", "info", count=sum(b - a for a, b in rule.globals),
                           params={"runs": _runs_text(rule.globals), "left": rule.window - 1,
                                   "right": rule.right_width}))
    if rule.prefix is not None:
        out.append(Finding("prefix", "info", params={"p": rule.prefix}))
    if rule.tree is not None:
        out.append(Finding("tree", "info", params={"parents": ",".join(map(str, rule.tree[:CELL_LIMIT])),
                                                   "past": rule.offset}))
    if rule.blocks:
        out.append(Finding("blocks", "info", count=len(rule.blocks), params={"blocks": _runs_text(rule.blocks)}))
    if rule.gaps:
        out.append(Finding("pad-gaps", "info", count=sum(b - a for a, b in rule.gaps),
                           params={"runs": _runs_text(rule.gaps)}))
    return out


def findings_of(diag: Diagnosis, reading: Reading, stats: RowStats, empty: np.ndarray, pad_query: np.ndarray,
                source, inverted_fit, float_mask: str | None = None, stored: tuple = ()) -> list[Finding]:
    # empty rows that are all PAD queries are told by the PAD finding (their outputs are dropped anyway)
    shown_empty = empty[:0] if pad_rows_are_the_empty_rows(empty, pad_query) else empty
    out = _shape(diag, source) + _representation(diag, reading, stats, shown_empty, float_mask)
    out += _polarity(diag, inverted_fit)
    out += _family(diag, reading, stats) + _differences(diag, reading) + _rows(diag, empty, pad_query) + _pattern(diag)
    if diag.alternatives:  # two hypotheses fit: both are said, and the options that tell them apart
        differ = _consequences_differ(diag, stored)
        out.append(Finding("readings", "warning" if differ else "info", count=1 + len(diag.alternatives),
                           params={"variant": "decide" if differ else None}))
    for f in out:
        if f.params.get("variant", "") is None:
            f.params.pop("variant")
    return out
