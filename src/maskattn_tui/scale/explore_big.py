"""An explore configuration of any length (`maskattn-tui --new 131072
--window 4096`), never built as a table: the rule's block overview from
its row runs (scale.blocks), and the numbers of ONE selected query row -
its visible keys as runs, their count, the largest weights and the output
- computed over that row's visible keys only.

The inputs are the explorer's own: Q, K and V of a position depend only on
(seed, matrix, position) (explore.config.generate_inputs), so a row's
numbers equal the explorer's for any configuration both can show; the
cost is the row's visible keys (the explorer's seeded generator is a few
microseconds a key)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from maskattn_tui.doctor.expect import ExpectOptions
from maskattn_tui.doctor.rules import Rule
from maskattn_tui.engine.softmax import stable_softmax
from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore.config import (INPUT_DIM, QK_RANGE, V_FACTOR_RANGE, V_STEP, VALUE_DIM, checked_simple,
                                         input_row)
from maskattn_tui.explore.fields import BY_NAME
from maskattn_tui.scale.blocks import BlockMap, from_runs
from maskattn_tui.scale.intervals import Runs, rule_runs

#: The rule's fields (doctor --expect's, with its wider bounds) and the others a big configuration keeps.
RULE_FIELDS = ("past", "new", "pad", "pad_side", "causal", "window", "chunk", "prefix", "documents", "tree", "sinks")
OTHER_FIELDS = ("temperature", "empty_row_policy", "seed")
#: Block size of the overview (FlexAttention's default).
BLOCK = 128
#: Largest weights listed for the selected row.
TOP = 5
#: The past of a long configuration (more new positions than the explorer
#: draws) when --past is not given: a long prompt is a prefill, so 131,072
#: new queries read 131,072 keys; the explorer's own default (3, the
#: figure's step 5) would silently add 3 keys. A short one routed here by a
#: wide window or chunk keeps the explorer's past, as the explorer shows it.
LONG_PAST = 0


@dataclass(frozen=True)
class BigConfig:
    options: ExpectOptions
    temperature: float = 1.0
    empty_row_policy: str = "error"
    seed: int = 0

    @property
    def rule(self) -> Rule:
        return self.options.rule()

    @property
    def rows(self) -> int:
        return self.options.new

    @property
    def keys(self) -> int:
        return self.options.past + self.options.new


def big_config(given: dict[str, object]) -> BigConfig:
    """From the explore options given (names as explore.fields); the rule's
    fields checked as doctor --expect checks them, the others as explore."""
    unknown = [name for name in given if name not in RULE_FIELDS + OTHER_FIELDS]
    if unknown:
        raise MaskattnError("scale_explore_field", option=BY_NAME[unknown[0]].flag)
    rule = {name: given[name] for name in RULE_FIELDS if name in given}
    rule.setdefault("new", BY_NAME["new"].default)
    long = int(rule["new"]) > BY_NAME["new"].hi
    rule.setdefault("past", LONG_PAST if long else BY_NAME["past"].default)
    options = ExpectOptions(**rule)
    other = {}
    for name in OTHER_FIELDS:
        if name in given:
            other[name] = checked_simple(BY_NAME[name], given[name], options.past + options.new)
    return BigConfig(options, **other)


@dataclass(frozen=True)
class RowNumbers:
    row: int
    position: int
    query_is_pad: bool
    runs: tuple[tuple[int, int], ...]
    count: int
    #: (key, weight, scaled score, value) of the largest weights, largest first
    top: tuple[tuple[int, float, float, float], ...]
    weight_sum: float
    output: float | None
    #: None: the row is empty and refused (policy "error"); else the policy applied
    empty_policy: str | None = None


def _key_rows(seed: int, positions: np.ndarray, matrix: str, dim: int, lo: int, hi: int) -> np.ndarray:
    from maskattn_tui.scale.inputs import draws

    return draws(seed, matrix, positions, dim, lo, hi).astype(np.float64)


def row_numbers(config: BigConfig, runs: Runs, row: int) -> RowNumbers:
    """The selected row's numbers over its visible keys only."""
    if not 0 <= row < config.rows:
        raise MaskattnError("scale_row", value=row, hi=config.rows - 1)
    position = config.options.past + row
    spans = tuple(runs.of_row(row))
    keys = np.concatenate([np.arange(a, b + 1) for a, b in spans]) if spans else np.zeros(0, dtype=np.int64)
    rule = config.rule
    pad_lo, pad_hi = (0, rule.pad) if rule.pad_side == "left" else (config.keys - rule.pad, config.keys)
    is_pad = bool(rule.pad) and pad_lo <= position < pad_hi
    lo, hi = QK_RANGE
    vlo, vhi = V_FACTOR_RANGE
    if keys.size == 0:
        policy = config.empty_row_policy
        if policy == "error":
            return RowNumbers(row, position, is_pad, spans, 0, (), 0.0, None, None)
        if policy in ("nan", "zeros"):
            return RowNumbers(row, position, is_pad, spans, 0, (), 0.0, math.nan if policy == "nan" else 0.0, policy)
        every = np.arange(config.keys)  # uniform over every key: the leak a finite minimum causes
        v = _key_rows(config.seed, every, "v", VALUE_DIM, vlo, vhi)[:, 0] * V_STEP
        return RowNumbers(row, position, is_pad, spans, 0, (), 1.0, float(v.mean()), policy)
    q = np.array(input_row(config.seed, "q", position, INPUT_DIM, lo, hi), dtype=np.float64)
    k = _key_rows(config.seed, keys, "k", INPUT_DIM, lo, hi)
    v = _key_rows(config.seed, keys, "v", VALUE_DIM, vlo, vhi)[:, 0] * V_STEP
    scores = (k @ q) / math.sqrt(INPUT_DIM)
    weights = stable_softmax(scores, config.temperature)
    order = np.argsort(-weights, kind="stable")[:TOP]
    top = tuple((int(keys[i]), float(weights[i]), float(scores[i]), float(v[i])) for i in order)
    return RowNumbers(row, position, is_pad, spans, int(keys.size), top, float(math.fsum(weights)),
                      float(math.fsum(weights * v)), None)


#: Blocks the overview holds at most: beyond, its block size doubles (from BLOCK).
MAX_BLOCKS = 1 << 22


def overview_block(rows: int, keys: int) -> int:
    block = BLOCK
    while -(-rows // block) * -(-keys // block) > MAX_BLOCKS:
        block *= 2
    return block


def overview(config: BigConfig, block: int | None = None) -> tuple[Runs, BlockMap]:
    runs = rule_runs(config.rule)
    block = block or overview_block(config.rows, config.keys)
    return runs, from_runs(runs, block, block)
