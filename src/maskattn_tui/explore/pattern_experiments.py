"""Experiments for the classic mistakes with real models' mask patterns,
each a pure function of an ExploreConfig (like explore.experiments):

* `window_off_by_one` - the window built with W + 1 keys, as when a
  distance (FlashAttention's window_size, attention-gym's lookback) is
  passed where Hugging Face's count is expected: the extra key per row.
* `positions_only`    - packed documents with restarted position ids but
  no block-diagonal mask: the cross-document cells that leak.
* `chunk_history`     - a chunked prefill whose chunk is masked as if alone
  (the cached keys get 0 in its attention mask): the new chunk loses the
  prompt's history, and with a chunk rule Hugging Face reads those leading
  zeros as left padding (masking_utils' chunked_overlay subtracts them), so
  the chunks restart at the first new token: keys of another chunk become
  readable and keys of the query's own chunk hidden. (Top-left alignment is
  the offset bug's mistake.)

They never refuse a configuration: without a window (or documents) they
show the mistake on an assumed one and say so (`assumed`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from maskattn_tui.engine.attention import AttentionResult
from maskattn_tui.engine.visibility import VisibilityTable, build_table

from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.mask_params import MaskParams
from maskattn_tui.explore.experiments import output_deltas  # one definition of "changed"
from maskattn_tui.explore.view import evaluate

Cells = tuple[tuple[int, int], ...]  # (query row, key position)
BoolTable = tuple[tuple[bool, ...], ...]

#: The window shown when the configuration has none.
ASSUMED_WINDOW = 3


def _only_in(a: VisibilityTable, b: VisibilityTable) -> Cells:
    """Cells allowed in `a` but not in `b`, as (row, key position)."""
    return tuple(
        (r, a.key_positions[c])
        for r, (ra, rb) in enumerate(zip(a.allowed, b.allowed))
        for c, (x, y) in enumerate(zip(ra, rb))
        if x and not y
    )


def _keys_per_row(table: VisibilityTable) -> tuple[int, ...]:
    return tuple(sum(row) for row in table.allowed)


@dataclass(frozen=True)
class TableMistake:
    """The correct table against a mistaken one, and what it does to the outputs."""

    correct: VisibilityTable
    wrong: VisibilityTable
    differs: BoolTable
    exposed: Cells  # blocked by the correct table, readable in the wrong one: a leak
    hidden: Cells  # readable in the correct table, blocked in the wrong one
    correct_result: AttentionResult
    wrong_result: AttentionResult
    output_change: tuple[float, ...]


def _mistake(config: ExploreConfig, correct: VisibilityTable, wrong: VisibilityTable) -> dict:
    correct_result = evaluate(config, correct.allowed)
    wrong_result = evaluate(config, wrong.allowed)
    return dict(
        correct=correct, wrong=wrong, differs=correct.differs_from(wrong),
        exposed=_only_in(wrong, correct), hidden=_only_in(correct, wrong),
        correct_result=correct_result, wrong_result=wrong_result,
        output_change=output_deltas(wrong_result, correct_result),
    )


@dataclass(frozen=True)
class WindowOffByOneResult(TableMistake):
    window: int = ASSUMED_WINDOW
    assumed: bool = False  # the configuration has no window: shown on ASSUMED_WINDOW
    keys_correct: tuple[int, ...] = ()  # visible keys per row, W including the query
    keys_wrong: tuple[int, ...] = ()  # with W + 1


def _window_rule(config: ExploreConfig, w: int) -> dict:
    """The Pattern's window fields for a window of W, spelled by the record
    (MaskParams.window_keys / window_after): without the causal rule
    two-sided, |q - k| <= W (W + 1 keys up to the query)."""
    wide = MaskParams(causal=config.causal, window=w, window_right=config.window_right)  # W may pass the field's range
    return dict(window=wide.window_keys, window_right=wide.window_after)


def window_off_by_one(config: ExploreConfig) -> WindowOffByOneResult:
    window = config.window or ASSUMED_WINDOW
    correct = config.table(**_window_rule(config, window))
    wrong = config.table(**_window_rule(config, window + 1))
    return WindowOffByOneResult(
        **_mistake(config, correct, wrong), window=window, assumed=config.window is None,
        keys_correct=_keys_per_row(correct), keys_wrong=_keys_per_row(wrong),
    )


@dataclass(frozen=True)
class PositionsOnlyResult(TableMistake):
    documents: tuple[int, ...] = ()
    assumed: bool = False  # the configuration has no documents: shown on two halves


def positions_only(config: ExploreConfig) -> PositionsOnlyResult:
    documents = config.documents
    if documents is None:
        half = (config.length + 1) // 2
        documents = (half, config.length - half) if config.length > 1 else (1,)
    correct = config.table(documents=documents)
    # The same restarted position ids, but the document rule left out of the mask.
    wrong = replace(config.table(documents=None), query_position_ids=correct.query_position_ids,
                    key_position_ids=correct.key_position_ids)
    return PositionsOnlyResult(**_mistake(config, correct, wrong), documents=documents,
                               assumed=config.documents is None)


@dataclass(frozen=True)
class ChunkHistoryResult(TableMistake):
    past: int = 0  # the cached (already prefilled) keys
    history_hidden: tuple[int, ...] = ()  # per row: cached keys the wrong table hides
    #: where each table counts its chunks from (None: no chunk rule); they
    #: differ when the zeros given to the cache move Hugging Face's origin
    chunk_origin: int | None = None
    wrong_chunk_origin: int | None = None


def _leading(flags) -> int:
    """How many flags before the first False: Hugging Face's left padding,
    (attention_mask.cumsum(-1) == 0).sum(-1), read off the 0 entries."""
    return next((i for i, x in enumerate(flags) if not x), len(flags))


def chunk_history(config: ExploreConfig) -> ChunkHistoryResult:
    correct = config.table()
    # The chunk's mask built for the chunk alone: the cached keys get 0 in
    # the attention mask like padding, every other rule kept; a chunk rule
    # then counts its chunks from the first 1 (HF's chunked_overlay).
    alone = [pad or k < config.past for k, pad in zip(correct.key_positions, correct.key_is_pad)]
    pattern = correct.pattern
    origin = wrong_origin = None
    if pattern is not None and pattern.chunk is not None:
        origin, wrong_origin = pattern.chunk_origin, _leading(alone)
        pattern = replace(pattern, chunk_origin=wrong_origin)
    wrong = build_table(correct.query_positions, correct.key_positions, alone, correct.causal, pattern)
    found = _mistake(config, correct, wrong)
    history = tuple(sum(1 for r, k in found["hidden"] if r == row and k < config.past) for row in range(config.new))
    return ChunkHistoryResult(**found, past=config.past, history_hidden=history, chunk_origin=origin,
                              wrong_chunk_origin=wrong_origin)


PATTERN_EXPERIMENTS = {
    "window-off-by-one": window_off_by_one,
    "positions-only": positions_only,
    "chunk-history": chunk_history,
}
