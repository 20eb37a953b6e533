"""The machine-readable state (schema 1). Strict JSON: no NaN or Infinity
tokens — a refused or NaN row is null, and -inf in the additive mask is the
string "-inf"."""

from __future__ import annotations

import math

from maskattn_tui import strict_json
from maskattn_tui.lesson.stepview import SCHEMA_VERSION, StepView

NEG_INF_TOKEN = "-inf"


def _num(x: float):
    if math.isnan(x):
        return None
    if math.isinf(x):
        return NEG_INF_TOKEN if x < 0 else "inf"
    return x


def _row(values):
    """A row of numbers, or null when missing or not a number (NaN policy)."""
    if values is None or any(math.isnan(x) for x in values):
        return None
    return [_num(x) for x in values]


def _matrix(rows):
    return [_row(r) for r in rows]


def _cells(table):
    """Per cell "allowed" or every blocking rule joined by "+" in the order
    future, pad, window, chunk, document, tree (e.g. "future+chunk")."""
    return [[c.value for c in row] for row in table.cells]


def step_json(view: StepView, lang: str) -> dict:
    spec, table, result = view.spec, view.table, view.result
    out = {
        "step": spec.step,
        "steps": view.steps,
        "kind": spec.kind,
        "lang": lang,
        "title": view.text("title", lang),
        "condition": view.text("condition", lang),
        "caption": view.text("caption", lang),
        "causal": spec.causal,
        "temperature": result.temperature,
        "scale": result.scale,
        "past": spec.past,
        "query_positions": list(table.query_positions),
        "key_positions": list(table.key_positions),
        "key_is_pad": list(table.key_is_pad),
        # The positions a rotary embedding uses: equal to the absolute ones
        # except with packed documents (restart at 0) and draft trees (past + depth).
        "query_position_ids": list(table.query_position_ids),
        "key_position_ids": list(table.key_position_ids),
        "focus_rows": list(spec.focus_rows),
        "q": _matrix(result.q),
        "k": _matrix(result.k),
        "v": _matrix(result.v),
        "cells": _cells(table),
        "allowed": [list(r) for r in table.allowed],
        "additive_mask": _matrix(table.additive()),
        "scores": _matrix(result.scores),
        "weights": _matrix(result.weights),
        "outputs": _matrix(result.outputs),
        "empty_rows": list(result.empty_rows),
        "empty_row_policy": result.policy,
    }
    if view.compare is not None:
        c = view.compare
        out["compare"] = {
            "row": c.row,
            "scores": _row(c.scores),
            "additive_mask": _row(c.additive),
            "exp_unmasked": _row(c.exp_unmasked),
            "exp_masked": _row(c.exp_masked),
            "denominator_unmasked": c.denominator_unmasked,
            "denominator_masked": c.denominator_masked,
            "weights_unmasked": _row(c.weights_unmasked),
            "weights_masked": _row(c.weights_masked),
            "output_unmasked": _row(c.output_unmasked),
            "output_masked": _row(c.output_masked),
        }
    if view.offset_bug is not None:
        b = view.offset_bug
        out["offset_bug"] = {
            "query_positions": list(b.table.query_positions),
            "cells": _cells(b.table),
            "differs": [list(r) for r in b.differs],
            "weights": _matrix(b.result.weights),
            "outputs": _matrix(b.result.outputs),
        }
    return out


def document(views: list[StepView], lang: str) -> dict:
    return {"schema": SCHEMA_VERSION, "steps": [step_json(v, lang) for v in views]}


def dumps(doc: dict, ascii: bool = False) -> str:
    """`ascii`: every character outside ASCII as a JSON escape (for a stream
    that cannot encode it; the document is the same)."""
    # Strict: a NaN that slipped through is refused (one line, exit 2), not written.
    return strict_json.dumps(doc, ascii=ascii)
