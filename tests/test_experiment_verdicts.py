"""What an experiment concludes: rounding noise is not a change (issue 12,
item 2), and a configuration on which an experiment has nothing to show
says so plainly instead of a misleading verdict (item 3)."""

from __future__ import annotations

import math

import pytest
from rich.console import Console

from maskattn_tui.explore import ExploreConfig, causal_off, leak_probe, offset_bug
from maskattn_tui.explore.experiment_runs import experiment_data
from maskattn_tui.explore.experiments import row_delta
from maskattn_tui.render.experiments import experiment_view
from maskattn_tui.render.palette import default_palette


def text_of(name, result, lang="en", color=False) -> str:
    console = Console(width=160, record=True, force_terminal=color, color_system="truecolor" if color else None,
                      highlight=False)
    console.print(experiment_view(name, result, lang, default_palette(ascii=False, color=color)))
    return console.export_text(styles=color)


# --- item 2: a tolerance relative to the values ---------------------------------


def test_one_rounding_step_near_9999_is_not_a_change():
    step = math.ulp(9999.0)  # 1.82e-12: one float64 step at this size
    assert step > 1e-12
    assert row_delta((9999.0,), (9999.0 + 2 * step,)) == 0.0
    assert row_delta((1e-3,), (1e-3 + 1e-9,)) == pytest.approx(1e-9)  # a real change of a small value stays


def test_a_change_far_below_the_values_but_real_is_kept():
    assert row_delta((9999.0, 1.0), (9999.0, 1.001)) == pytest.approx(0.001)


def test_issue_configuration_row_4_is_unchanged_as_torch_says():
    # json --past 0 --new 8 --seed 11 --temperature 0.1 --experiment leak-probe
    res = leak_probe(ExploreConfig(past=0, new=8, seed=11, temperature=0.1))
    # Row 4 under the correct mask reads keys 0-4; with causal off it also
    # reads keys 5-7. Every probed key holds 9999 and, at T = 0.1, key 0's
    # weight is below one rounding step: the two outputs are equal to the
    # last digit a float64 can tell (torch gives exactly 0).
    assert 4 not in res.changed_rows
    assert res.broken_vs_correct[4] == 0.0
    assert 4 not in experiment_data("leak-probe", res)["changed_rows"]


def exact_output(scores, allowed, v, temperature):
    """softmax(scores / T) x V over the allowed keys, in 60-digit decimals."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        s = [Decimal(x) / Decimal(str(temperature)) for x, ok in zip(scores, allowed) if ok]
        vs = [Decimal(row[0]) for row, ok in zip(v, allowed) if ok]
        top = max(s)
        e = [(x - top).exp() for x in s]
        return sum(a * b for a, b in zip(e, vs)) / sum(e)


def test_real_changes_far_below_the_values_are_kept():
    # Same configuration: rows 3 and 5 change by 2.6e-9 and 8.7e-10 (a key of
    # weight ~1e-13 at T = 0.1), rows 4 and 6 by 1e-36 and 1e-30 - exactly,
    # computed here in 60-digit decimals; float64 rounds the latter to one step.
    from maskattn_tui.explore.view import scores_of

    config = ExploreConfig(past=0, new=8, seed=11, temperature=0.1)
    res = leak_probe(config)
    scores, _ = scores_of(config)
    exact = [float(exact_output(scores[r], res.broken_table.allowed[r], res.v_probe, 0.1)
                   - exact_output(scores[r], res.correct.allowed[r], res.v_probe, 0.1)) for r in range(8)]
    real = [r for r, d in enumerate(exact) if abs(d) > 1e-20]
    assert real == [0, 1, 3, 5]
    assert res.changed_rows == (0, 1, 3, 5)
    for r in real:
        assert res.broken_vs_correct[r] == pytest.approx(abs(exact[r]), rel=1e-2)


# --- item 3: nothing to show -------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_offset_bug_with_no_cache_says_it_changes_nothing(lang):
    res = offset_bug(ExploreConfig(past=0, new=3))
    assert not res.differing_cells
    data = experiment_data("offset-bug", res, lang)
    assert data["nothing_to_show"]
    out = text_of("offset-bug", res, lang)
    assert data["nothing_to_show"] in " ".join(out.split())
    assert "History hidden" not in out and "隐藏的历史" not in out
    assert "past = 0" in data["nothing_to_show"]


def test_the_nothing_to_show_line_is_not_a_warning():
    palette = default_palette(ascii=False, color=True)
    res = offset_bug(ExploreConfig(past=0, new=3))
    message = experiment_data("offset-bug", res)["nothing_to_show"]
    view = experiment_view("offset-bug", res, "en", palette)
    console = Console(width=200, force_terminal=True, color_system="truecolor")
    lines = console.render_lines(view, console.options, pad=False)
    line = next(line for line in lines if "".join(seg.text for seg in line).strip() == message)
    warning = palette.style("warning")
    assert all(seg.style != warning for seg in line if seg.text.strip())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_offset_bug_when_every_hidden_key_is_pad(lang):
    # --past 1 --new 2 --pad 2 --pad-side right: the keys the bug would hide
    # (k1 for row 0) are PAD, hidden anyway: nothing changes.
    res = offset_bug(ExploreConfig(past=1, new=2, pad=2, pad_side="right"))
    assert not res.hidden and not res.differing_cells
    data = experiment_data("offset-bug", res, lang)
    assert "k1" in data["nothing_to_show"] and "PAD" in data["nothing_to_show"]
    out = text_of("offset-bug", res, lang)
    assert "History hidden" not in out and "隐藏的历史" not in out


def test_offset_bug_with_a_cache_has_something_to_show():
    res = offset_bug(ExploreConfig(past=3, new=2))
    assert experiment_data("offset-bug", res)["nothing_to_show"] is None
    assert "History hidden from the new queries: q3" in text_of("offset-bug", res)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_leak_probe_after_v_overrides_at_the_probe_value(lang):
    # V[future]=9999 typed first: the probe sets nothing new (k1: 9999 -> 9999).
    config = ExploreConfig(past=0, new=2, v_override=((1, 9999.0),))
    res = leak_probe(config)
    assert res.probe_keys == (1,) and res.v[1] == res.v_probe[1]
    data = experiment_data("leak-probe", res, lang)
    assert "k1" in data["nothing_to_show"] and "9999" in data["nothing_to_show"]
    out = text_of("leak-probe", res, lang)
    assert "9999 → 9999" not in out
    assert "no guarded row moved" not in out


def test_leak_probe_on_the_defaults_has_something_to_show():
    assert experiment_data("leak-probe", leak_probe(ExploreConfig()))["nothing_to_show"] is None


def test_causal_off_with_one_query_says_there_is_no_future():
    res = causal_off(ExploreConfig(past=3, new=1))
    assert not res.newly_visible
    data = experiment_data("causal-off", res)
    assert "new = 1" in data["nothing_to_show"]
    assert "Newly visible" not in text_of("causal-off", res)


def test_the_probe_line_lists_only_the_values_it_changes():
    # V[2]=9999 typed first; the probe sets k1 and k2: only k1 changes.
    res = leak_probe(ExploreConfig(past=0, new=3, v_override=((2, 9999.0),)))
    assert res.probe_keys == (1, 2)
    out = text_of("leak-probe", res)
    probe_line = next(line for line in out.splitlines() if line.startswith("The probe"))
    assert "k1:" in probe_line and "k2:" not in probe_line and "9999 → 9999" not in out
