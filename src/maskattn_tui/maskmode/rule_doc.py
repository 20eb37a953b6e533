"""Mask mode on an explore configuration of any length (`maskattn-tui --new
131072 --window 4096`): mask mode's document contract (document.py) over
the rule's runs (rule_tables.RuleTables), so the mask screen and its views
draw it as they draw a saved mask; its own titles and text are its
declared `rule_text` (the user built the rule: no doctor reading).

A row's weights are the explorer's own softmax of Q.K over that row's
visible keys only (the inputs of scale.explore_big); K and V of a key are
drawn once and kept, so moving to the next row draws only its new keys.
The explanation states the rule (the user built it: no doctor reading)
and summarises the selected row: its count, its runs of keys, its largest
weights and its output."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from maskattn_tui.engine.softmax import stable_softmax
from maskattn_tui.explore.config import INPUT_DIM, QK_RANGE, V_FACTOR_RANGE, V_STEP, VALUE_DIM, input_row
from maskattn_tui.i18n import t
from maskattn_tui.maskmode.document import MaskDocument, ViewState
from maskattn_tui.maskmode.row_weights import RowWeights
from maskattn_tui.maskmode.rule_tables import RuleTables
from maskattn_tui.maskmode.text import Section, block_here, cell_here, legend, view_line
from maskattn_tui.scale.explore_big import TOP, BigConfig, row_numbers
from maskattn_tui.scale.explore_print import rules_text, runs_text
from maskattn_tui.scale.inputs import draws
from maskattn_tui.scale.intervals import rule_runs


@dataclass(frozen=True)
class RuleInfo:
    """What the screen's title and slice keys read of a document."""

    path: str
    shape: tuple[int, int]
    format: str = "rule"
    batch: None = None
    head: None = None


class RuleDoc(MaskDocument):
    #: The grid pane's title (mask mode's says "your mask and the rule's table").
    grid_title = "scale_app.panel.grid"

    def __init__(self, config: BigConfig, lang: str = "en") -> None:
        self.config = config
        rule = config.rule
        runs = rule_runs(rule)
        pad = (0, rule.pad) if rule.pad_side == "left" else (config.keys - rule.pad, config.keys)
        self.tables = RuleTables(runs, rule, config.options.past, pad if rule.pad else (0, 0))
        # The title's name, in no language (the screen's language may change): queries x keys.
        self.info = RuleInfo(f"{config.rows:,} × {config.keys:,}", (config.rows, config.keys))
        n = config.keys
        self._k = np.zeros((n, INPUT_DIM), dtype=np.float64)
        self._v = np.zeros(n, dtype=np.float64)
        self._drawn = np.zeros(n, dtype=bool)

    @property
    def rule_text(self) -> RuleDoc:
        """This document states its own rule (titles, options, sections: document.RuleText)."""
        return self

    @property
    def options(self):
        return self.config.options

    # -- a row's numbers ---------------------------------------------------------
    def _inputs(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        new = keys[~self._drawn[keys]]
        if new.size:
            seed, (lo, hi), (vlo, vhi) = self.config.seed, QK_RANGE, V_FACTOR_RANGE
            self._k[new] = draws(seed, "k", new, INPUT_DIM, lo, hi)
            self._v[new] = draws(seed, "v", new, VALUE_DIM, vlo, vhi)[:, 0] * V_STEP
            self._drawn[new] = True
        return self._k[keys], self._v[keys]

    def visible_keys(self, row: int) -> np.ndarray:
        spans = self.tables.runs.of_row(row)
        return np.concatenate([np.arange(a, b + 1) for a, b in spans]) if spans else np.zeros(0, dtype=np.int64)

    def row_weights(self, row: int) -> RowWeights:
        n, config = self.config.keys, self.config
        keys = self.visible_keys(row)
        visible = np.zeros(n, dtype=bool)
        visible[keys] = True
        scores, weights = np.zeros(n), np.zeros(n)
        if keys.size:
            lo, hi = QK_RANGE
            q = np.array(input_row(config.seed, "q", config.options.past + row, INPUT_DIM, lo, hi), dtype=np.float64)
            k, _ = self._inputs(keys)
            s = (k @ q) / math.sqrt(INPUT_DIM)
            scores[keys], weights[keys] = s, stable_softmax(s, config.temperature)
        return RowWeights(row, config.options.past + row, scores, visible, weights, False)

    def row_lines(self, row: int, lang: str) -> list[str]:
        """The row summarised: count and runs, largest weights, output."""
        w = self.weights(row)
        spans = self.tables.runs.of_row(row)
        lines = [t("scale.x.row", lang, row=row, position=w.position, count=f"{w.count:,}", runs=len(spans),
                   spans=runs_text(spans) or "-")]
        if self.tables.row_is_pad(row):
            lines.append(t("scale.x.pad_query", lang).strip())
        if w.empty:
            n = row_numbers(self.config, self.tables.runs, row)
            lines.append(t("scale.x.empty_refused" if n.empty_policy is None else "scale.x.empty_policy", lang,
                           policy=n.empty_policy or "", output="-" if n.output is None else f"{n.output:g}").strip())
            return lines
        seen = np.flatnonzero(w.visible)
        keys = seen[np.lexsort((seen, -w.weights[seen]))[:TOP]].tolist()  # ties: the first keys
        top = t("doctor.report.join", lang).join(
            t("scale.x.weight", lang, k=k, weight=f"{w.weights[k]:.4g}", score=f"{w.scores[k]:.4g}",
              value=f"{self._v[k]:g}") for k in keys)
        lines.append(t("scale.x.top", lang, count=len(keys), weights=top).strip())
        output = math.fsum(w.weights[w.visible] * self._v[w.visible])
        lines.append(t("scale.x.output", lang, total=f"{math.fsum(w.weights[w.visible]):.6g}",
                       output=f"{output:.6g}").strip())
        return lines

    # -- what mask mode's text reads (render.mask_figure asks) --------------------
    def titles(self, lang: str) -> tuple[str, str]:
        rules = rules_text(self.config, lang)
        return t("scale_app.table.rule", lang, rules=rules), t("scale_app.table.same", lang)

    def sections(self, state: ViewState, lang: str, glyph) -> list[Section]:
        tables = self.tables
        here = cell_here(tables, state, lang) if state.cells else block_here(tables, state, lang)
        o = self.config.options
        rule = [(None, t("scale.x.title", lang, keys=self.config.keys, past=o.past, new=o.new,
                         rules=rules_text(self.config, lang))),
                (None, t("scale_app.built", lang)), (None, view_line(state, lang, tables.offset))]
        return [
            Section(t("doctor_tui.title.here", lang), tuple(here)),
            Section(t("scale_app.title.row", lang), tuple((None, line) for line in self.row_lines(state.place[0], lang))),
            Section(t("scale_app.title.rule", lang), tuple(rule)),
            Section(t("doctor_tui.title.legend", lang), tuple(legend(state, lang, tables.offset, glyph))),
        ]
