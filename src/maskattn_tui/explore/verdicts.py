"""When an experiment has nothing to show on a configuration: one plain
sentence instead of a verdict that would claim a leak, a hidden history or
a change that is not there (past = 0 for the offset bug, a probe whose V
already holds the probe value, keys that are PAD anyway, no future)."""

from __future__ import annotations

from collections.abc import Sequence

from maskattn_tui.i18n import t

from maskattn_tui.explore.experiments import CausalOffResult, ExperimentResult, LeakProbeResult, OffsetBugResult
from maskattn_tui.explore.pattern_experiments import ChunkHistoryResult, TableMistake


def _keys(positions: Sequence[int], lang: str) -> str:
    return t("explore.list_sep", lang).join(f"k{p}" for p in positions)


def nothing_to_show(result: ExperimentResult, lang: str = "en") -> str | None:
    """One plain sentence when the experiment cannot show anything on this
    configuration (so that no verdict claims a leak, a hidden history or a
    change that is not there); None when it has something to show."""
    prefix = "explore.experiment.nothing"
    if isinstance(result, LeakProbeResult):
        if not result.probe_keys:
            return t(f"{prefix}.leak_no_future", lang)
        table = result.correct
        pad = {p for p, is_pad in zip(table.key_positions, table.key_is_pad) if is_pad}
        if pad.issuperset(result.probe_keys):
            return t(f"{prefix}.leak_all_pad", lang, keys=_keys(result.probe_keys, lang))
        if all(result.v[j] == result.v_probe[j] for j in result.probe_keys):
            return t(f"{prefix}.leak_same_v", lang, keys=_keys(result.probe_keys, lang),
                     value=f"{result.value:g}")
        return None
    if isinstance(result, OffsetBugResult) and not result.differing_cells:
        past = result.correct.query_positions[0]
        if past == 0:
            return t(f"{prefix}.offset_no_cache", lang)
        # The keys the row numbers would hide from each row (r, past + r]: all PAD.
        keys = sorted({k for r in range(len(result.correct.query_positions)) for k in range(r + 1, past + r + 1)})
        return t(f"{prefix}.offset_all_pad", lang, keys=_keys(keys, lang))
    if isinstance(result, CausalOffResult) and not result.newly_visible:
        if len(result.causal.query_positions) == 1:
            return t(f"{prefix}.causal_one_query", lang)
        return t(f"{prefix}.causal_future_pad", lang)
    if isinstance(result, ChunkHistoryResult) and result.past == 0:
        return t(f"{prefix}.history_first_chunk", lang)
    if isinstance(result, TableMistake) and not result.exposed and not result.hidden:
        return t(f"{prefix}.same_table", lang)
    return None
