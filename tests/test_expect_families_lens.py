"""The new rules through the explorer's views and API lenses: the hf lens's
arguments, given to the real transformers functions, build the explorer's
table; FlashAttention's window_size and the FlexAttention mask_mod say a
two-sided window; a configuration with only unused cache slots is drawn
with them (not as a plain causal table)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from transformers import MistralConfig  # noqa: E402
from transformers import masking_utils as mu  # noqa: E402
from transformers.cache_utils import StaticCache  # noqa: E402

from maskattn_tui.explore.api_lens import lens  # noqa: E402
from maskattn_tui.explore.config import ExploreConfig  # noqa: E402
from maskattn_tui.explore.view import explore_view  # noqa: E402

from helpers import tiny_config  # noqa: E402


hf_config = tiny_config


def ours(config: ExploreConfig) -> np.ndarray:
    return np.array(config.table().allowed)


def as_table(mask) -> np.ndarray:
    return mask.numpy().reshape(mask.shape[-2], mask.shape[-1])


def test_hf_lens_two_sided_window_builds_our_table():
    c = ExploreConfig(past=0, new=7, causal=False, window=2)
    entry = lens(c.table(), "hf")
    assert entry["matches"] and entry["arguments"] == {"sliding_window": 2}
    m = mu.create_bidirectional_sliding_window_mask(
        config=hf_config(MistralConfig, sliding_window=entry["arguments"]["sliding_window"]),
        inputs_embeds=torch.zeros(1, 7, 32), attention_mask=torch.ones(1, 7, dtype=torch.long))
    assert np.array_equal(as_table(m), ours(c))
    asymmetric = lens(ExploreConfig(past=0, new=7, causal=False, window=2, window_right=1).table(), "hf")
    assert not asymmetric["matches"] and "one sliding_window" in asymmetric["limits"][0]


def test_hf_lens_blocks_build_our_table():
    c = ExploreConfig(past=0, new=8, window=3, bidirectional="2-5")
    entry = lens(c.table(), "hf")
    assert entry["matches"] and entry["arguments"]["block_sequence_ids"] == [-1, -1, 0, 0, 0, 0, -1, -1]
    m = mu.create_sliding_window_causal_mask(
        config=hf_config(MistralConfig, sliding_window=3), inputs_embeds=torch.zeros(1, 8, 32),
        attention_mask=torch.ones(1, 8, dtype=torch.long), cache=None, position_ids=torch.arange(8)[None],
        block_sequence_ids=torch.tensor([entry["arguments"]["block_sequence_ids"]]))
    assert np.array_equal(as_table(m), ours(c))


def test_hf_lens_static_cache_builds_our_table():
    c = ExploreConfig(past=4, new=2, cache_slots=3)
    entry = lens(c.table(), "hf")
    assert entry["matches"] and entry["arguments"] == {"max_cache_len": 9} and entry["limits"] == []
    cache = StaticCache(config=hf_config(), max_cache_len=entry["arguments"]["max_cache_len"])
    k = torch.zeros(1, 2, 4, 16)
    cache.update(k, k, 0)
    m = mu.create_causal_mask(config=hf_config(), inputs_embeds=torch.zeros(1, 2, 32),
                              attention_mask=torch.ones(1, 6, dtype=torch.long), cache=cache,
                              position_ids=torch.arange(4, 6)[None])
    assert np.array_equal(as_table(m), ours(c))


@pytest.mark.parametrize("right", [None, 0, 1, 3])
def test_flash_and_flex_lenses_say_a_two_sided_window(right):
    c = ExploreConfig(past=0, new=7, causal=False, window=2, window_right=right)
    flash, flex = lens(c.table(), "flash"), lens(c.table(), "flex")
    assert flash["arguments"]["window_size"] == [2, 2 if right is None else right] and flash["matches"]
    assert flex["matches"], flex["value"]


@pytest.mark.parametrize("kw", [dict(bidirectional="1-3"), dict(cache_slots=2), dict(cache_slots=2, causal=False),
                                dict(pad_keys="1,3"), dict(bidirectional="2-4", window=2, pad_keys="0")])
def test_flex_lens_runs_to_our_table(kw):
    c = ExploreConfig(past=1, new=5, **kw)
    assert lens(c.table(), "flex")["matches"]


def test_a_configuration_with_only_unused_slots_is_drawn_with_them():
    c = ExploreConfig(past=2, new=3, cache_slots=2, causal=False)
    view = explore_view(c)
    assert [row[5:] for row in view.table.cells] == [("slot", "slot")] * 3
    assert not any(view.table.allowed[r][k] for r in range(3) for k in (5, 6))


@pytest.mark.parametrize("kw", [dict(causal=False, window=1), dict(causal=False, window=2, window_right=0),
                                dict(window=2, bidirectional="2-4")])
def test_the_window_experiment_starts_from_the_configured_table(kw):
    from maskattn_tui.explore.pattern_experiments import window_off_by_one

    c = ExploreConfig(past=0, new=6, **kw)
    result = window_off_by_one(c)
    assert result.keys_correct == tuple(sum(row) for row in c.table().allowed)
    assert all(w >= k for w, k in zip(result.keys_wrong, result.keys_correct))


def test_every_experiment_runs_beside_unused_slots():
    from maskattn_tui.explore.experiment_runs import run_experiment
    from maskattn_tui.explore.experiments import EXPERIMENTS
    from maskattn_tui.explore.pattern_experiments import PATTERN_EXPERIMENTS

    c = ExploreConfig(past=1, new=4, cache_slots=2, pad_keys="1")
    for name in (*EXPERIMENTS, *PATTERN_EXPERIMENTS):
        run_experiment(name, c)  # positions-only used to index past the documents
