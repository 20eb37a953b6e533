"""Every experiment by name, and its result as JSON-ready data: the mask
experiments (explore.experiments), the pattern ones
(explore.pattern_experiments) and what each says when a configuration gives
it nothing to show (explore.verdicts)."""

from __future__ import annotations

import math
from dataclasses import fields

from maskattn_tui.engine.attention import AttentionResult
from maskattn_tui.engine.visibility import VisibilityTable
from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t

from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.experiments import (EXPERIMENTS, ExperimentResult, LeakProbeResult, OffsetBugResult,
                                              causal_off, leak_probe, offset_bug, polarity_bug)
from maskattn_tui.explore.pattern_experiments import PATTERN_EXPERIMENTS
from maskattn_tui.explore.verdicts import nothing_to_show


def run_experiment(name: str, config: ExploreConfig) -> ExperimentResult:
    """One experiment by name (EXPERIMENTS); the leak probe's broken mask is
    "causal-off" (use leak_probe(config, "offset") for the other)."""
    runs = {
        "leak-probe": leak_probe,
        "offset-bug": offset_bug,
        "polarity-bug": polarity_bug,
        "causal-off": causal_off,
        **PATTERN_EXPERIMENTS,
    }
    if name not in runs:
        raise MaskattnError(
            "explore_experiment", field="experiment", value=name, choices=", ".join(EXPERIMENTS)
        )
    return runs[name](config)


def _plain(x: object) -> object:
    """JSON-ready: tables as cells, NaN as None, infinities as text."""
    if isinstance(x, VisibilityTable):
        return {
            "query_positions": list(x.query_positions),
            "key_positions": list(x.key_positions),
            "key_is_pad": list(x.key_is_pad),
            "causal": x.causal,
            "cells": [[c.value for c in row] for row in x.cells],
            "allowed": [list(row) for row in x.allowed],
        }
    if isinstance(x, AttentionResult):
        return {
            "scores": _plain(x.scores),
            "weights": _plain(x.weights),
            "outputs": _plain(x.outputs),
            "empty_rows": list(x.empty_rows),
        }
    if isinstance(x, float):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    return x


def experiment_data(name: str, result: ExperimentResult, lang: str = "en") -> dict:
    """An experiment's result as JSON-ready data (no NaN or Infinity tokens:
    NaN -> null, +-inf -> "inf"/"-inf"), with its title and claim in `lang`."""
    data: dict = {
        "experiment": name,
        "title": t(f"explore.experiment.{name}.title", lang),
        "claim": t(f"explore.experiment.{name}.claim", lang),
    }
    for f in fields(result):
        data[f.name] = _plain(getattr(result, f.name))
    extra = {
        LeakProbeResult: ("correct_unchanged", "leak_rows", "changed_rows", "empty_leak_rows", "expected_rows"),
        OffsetBugResult: ("differing_cells",),
    }.get(type(result), ())
    for prop in extra:
        data[prop] = _plain(getattr(result, prop))
    data["nothing_to_show"] = nothing_to_show(result, lang)
    return data
