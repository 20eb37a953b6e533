"""What the experiments mark and conclude (issue 20 point 10, issue 21's
nothing_to_show): the leak probe's "!" only on a change that is a sign of
a leak; the offset bug and the chunk history each showing their own
mistake; the chunk's own keys never counted as history; experiments 5-7
saying nothing_to_show in JSON where print says there is nothing to show."""

from __future__ import annotations

import random
import re

import pytest
from rich.console import Console

from maskattn_tui.explore import ExploreConfig, leak_probe, offset_bug
from maskattn_tui.explore.experiment_runs import experiment_data, run_experiment
from maskattn_tui.render.experiments import experiment_view
from maskattn_tui.render.palette import default_palette

from test_mask_patterns import random_config


def text_of(name, result, lang="en") -> str:
    console = Console(width=200, record=True, highlight=False)
    console.print(experiment_view(name, result, lang, default_palette(ascii=False, color=False)))
    return console.export_text()


def _output_rows(out: str) -> list[tuple[str, str]]:
    """(mask, change column) per line of the leak probe's outputs table."""
    rows = []
    for line in out.splitlines():
        for mask in ("correct", "broken"):
            if f" {mask} " in f" {line} " and ("changed" in line or "unchanged" in line):
                rows.append((mask, re.search(r"[!~=] (un)?changed.*$", line.rstrip()).group(0)))
    return rows


@pytest.mark.parametrize("config, broken", [
    (ExploreConfig(past=0, new=3), "causal-off"),
    (ExploreConfig(past=2, new=4), "causal-off"),
    (ExploreConfig(past=2, new=4), "offset"),
    (ExploreConfig(past=1, new=3, pad=1, pad_side="right"), "causal-off"),
])
def test_the_leak_probe_marks_only_what_signals_a_leak(config, broken):
    res = leak_probe(config, broken)
    table = res.correct
    probed = [table.key_positions.index(j) for j in res.probe_keys]
    rows = _output_rows(text_of("leak-probe", res))
    assert len(rows) == 2 * len(table.query_positions)
    for r in range(len(table.query_positions)):
        reads = any(table.allowed[r][j] for j in probed)  # the correct table reads a probed key
        (m1, correct), (m2, broken_change) = rows[2 * r], rows[2 * r + 1]
        assert (m1, m2) == ("correct", "broken")
        if reads:  # its change is what the probe is for: no alarm
            assert not correct.startswith("!"), (r, correct)
        # under the broken mask: an alarm exactly where it ends elsewhere than the correct mask
        ends_elsewhere = res.broken_vs_correct[r] > 0
        moved = res.broken_change[r] > 0
        assert broken_change.startswith("!") == (moved and (ends_elsewhere or not reads)), (r, broken_change)


def test_offset_bug_and_chunk_history_differ_on_the_default_configuration():
    config = ExploreConfig()
    bug, history = offset_bug(config), run_experiment("chunk-history", config)
    assert config.past > 0
    assert bug.wrong.allowed != history.wrong.allowed
    assert [o for o in bug.wrong_result.outputs] != [o for o in history.wrong_result.outputs]


def test_chunk_history_hides_the_cached_keys_and_only_those():
    rng = random.Random(70)
    for _ in range(150):
        config = random_config(rng)
        res = run_experiment("chunk-history", config)
        table = config.table()
        want = [(r, k) for r, row in enumerate(table.allowed) for k, ok in zip(table.key_positions, row)
                if ok and k < config.past]
        history = [(r, k) for r, k in res.hidden if k < config.past]
        assert history == want, config
        # beyond the history only a chunk rule's moved origin changes cells
        # (HF reads the zeros as left padding: test_experiment_rules_words.py)
        if res.chunk_origin == res.wrong_chunk_origin:
            assert sorted(res.hidden) == want and res.exposed == (), config
        assert list(res.history_hidden) == [sum(1 for rr, _ in want if rr == r) for r in range(config.new)]


def test_the_history_hidden_from_the_chunk_is_only_history():
    # issue 20: "q3: k1-k3" counted the chunk's own k3 (past = 3, new = 2)
    out = text_of("chunk-history", run_experiment("chunk-history", ExploreConfig(past=3, new=2)))
    line = next(x for x in out.splitlines() if x.startswith("History hidden from the chunk"))
    assert "q3: k0–k2" in line and "k3" not in line and "k4" not in line


NOTHING_IN_PRINT = ("The two tables agree", "this is the first chunk", "两张表相同", "这是第一块")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_experiments_5_to_7_say_nothing_to_show_where_print_does(lang):
    rng = random.Random(57)
    said = {True: 0, False: 0}
    configs = [random_config(rng) for _ in range(60)] + [ExploreConfig(past=0, new=1), ExploreConfig(past=0, new=4)]
    for config in configs:
        for name in ("window-off-by-one", "positions-only", "chunk-history"):
            res = run_experiment(name, config)
            nothing = experiment_data(name, res, lang)["nothing_to_show"]
            printed = text_of(name, res, lang)
            says = any(words in printed for words in NOTHING_IN_PRINT)
            assert (nothing is not None) == says, (name, config, nothing)
            if nothing is not None:  # the very sentence print shows
                assert nothing in " ".join(printed.split()), (name, config)
            said[says] += 1
    assert said[True] > 5 and said[False] > 50
