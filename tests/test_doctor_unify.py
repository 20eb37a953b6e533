"""The doctor's --expect and the explorer share one schema and one set of
rules: doctor.rules' vectorised tables equal the engine's (ExploreConfig
.table()) cell by cell over generated configurations, and a configuration
the explorer refuses is refused by ExpectOptions with the same message."""

import itertools
import json
import random

import numpy as np
import pytest

from maskattn_tui.doctor.expect import ExpectOptions
from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.fields import BY_NAME, MASK_MAX
from maskattn_tui.explore.patterns import NEED_CAUSAL, PATTERN_FIELDS, REFUSED_PAIRS

#: Every set of pattern rules the explorer accepts together.
ACCEPTED = [set(s) for n in range(3) for s in itertools.combinations(PATTERN_FIELDS, n)
            if not any(a in s and b in s for a, b in REFUSED_PAIRS)]


def test_the_accepted_sets_are_the_ones_the_issue_names():
    # issue 10: a window inside packed documents combines; every rule alone; none
    assert sorted(map(sorted, ACCEPTED)) == sorted([[], ["chunk"], ["documents"], ["prefix"], ["tree"],
                                                    ["window"], ["documents", "window"], ["bidirectional"],
                                                    ["bidirectional", "window"]])


def lengths(rng: random.Random, total: int) -> tuple[int, ...]:
    cuts = sorted(rng.sample(range(1, total), rng.randint(0, min(3, total - 1)))) if total > 1 else []
    return tuple(int(n) for n in np.diff([0, *cuts, total]))


def generated(seed: int) -> dict:
    """A configuration within the explorer's limits with one accepted rule set."""
    rng = random.Random(seed)
    rules = ACCEPTED[seed % len(ACCEPTED)]
    past, new = rng.randint(0, 8), rng.randint(1, 8)
    keys = past + new
    values = dict(past=past, new=new, pad=rng.choice([0, 0, rng.randint(0, keys)]),
                  pad_side=rng.choice(["left", "right"]),
                  causal=any(r in NEED_CAUSAL for r in rules) or rng.random() < 0.7)
    pick = {"window": lambda: rng.randint(1, keys + 1), "chunk": lambda: rng.randint(1, keys + 1),
            "prefix": lambda: rng.randint(0, keys), "documents": lambda: lengths(rng, keys),
            "tree": lambda: tuple(rng.randint(-1, i - 1) for i in range(new)),
            "bidirectional": lambda: ((a := rng.randint(0, keys - 1), rng.randint(a, keys - 1)),)}
    values.update({r: pick[r]() for r in rules})
    if "window" in rules and not values["causal"] and rng.random() < 0.5:
        values["window_right"] = rng.randint(0, keys)
    if rng.random() < 0.2:
        values["pad_keys"] = ((a := rng.randint(0, keys - 1), rng.randint(a, keys - 1)),)
    if not rules & {"documents", "tree"} and rng.random() < 0.25:
        values["cache_slots"] = rng.randint(1, 3)
    return values


@pytest.mark.parametrize("seed", range(350))
def test_numpy_rules_equal_the_engine_cell_by_cell(seed):
    values = generated(seed)
    engine = np.array(ExploreConfig(**values).table().allowed, dtype=bool)
    rule = ExpectOptions(**values).rule()
    got = rule.table_rows(slice(None))  # the vectorised path, never the explorer
    assert got.shape == engine.shape
    assert (got == engine).all(), (values, np.argwhere(got != engine).tolist())
    runs = rule.intervals()
    if runs is not None:  # per-row runs describe the same table
        keys = np.arange(rule.keys)[None, :]
        assert ((keys >= runs[0][:, None]) & (keys <= runs[1][:, None]) == engine).all(), values


def test_left_pad_moves_the_chunk_origin():
    # HF chunked_overlay: chunks of 2 counted from the first real token (position 1)
    got = ExpectOptions(past=0, new=5, pad=1, chunk=2).rule().table_rows(slice(None))
    want = ["00000", "01000", "01100", "00010", "00011"]
    assert ["".join("1" if c else "0" for c in row) for row in got] == want


# --- the same refusals, with the same reasons ---------------------------------------

#: A valid value of each pattern field for past=2, new=6.
VALUE = dict(window=3, chunk=4, prefix=2, documents=(4, 4), tree=(-1, 0, 0, 1, 2, 2), bidirectional=((2, 4),))
REFUSED = [
    *(dict(past=2, new=6, **{a: VALUE[a], b: VALUE[b]}) for a, b in REFUSED_PAIRS),
    *(dict(past=2, new=6, causal=False, **{r: VALUE[r]}) for r in NEED_CAUSAL),
    dict(past=2, new=6, documents=(3, 3)), dict(past=2, new=6, documents=(8, 0)),
    dict(past=2, new=3, tree=(-1, 0)), dict(past=2, new=3, tree=(-1, 1, 0)), dict(past=2, new=3, tree=(-1, 0, -2)),
    dict(past=2, new=3, pad=6), dict(past=2, new=3, prefix=6), dict(past=2, new=3, window=0),
    dict(past=2, new=3, chunk=0), dict(past=2, new=3, prefix=-1), dict(past=2, new=3, pad_side="middle"),
]


@pytest.mark.parametrize("values", REFUSED, ids=lambda v: "-".join(k for k in v if k not in ("past", "new")))
def test_what_the_explorer_refuses_expect_refuses_with_the_same_reason(values):
    with pytest.raises(MaskattnError) as explorer:
        ExploreConfig(**values)
    with pytest.raises(MaskattnError) as expect:
        ExpectOptions(**values)
    assert expect.value.key == explorer.value.key
    field = explorer.value.params["field"]
    assert expect.value.params["field"] == field
    want = dict(explorer.value.params)
    if BY_NAME[field].mask_hi is not None and "hi" in want:  # the one designed difference: a mask's bound
        assert (want["hi"], expect.value.params["hi"]) == (BY_NAME[field].hi, MASK_MAX)
        want["hi"] = MASK_MAX
    assert expect.value.params == want
    for lang in ("en", "zh"):
        assert expect.value.message(lang) == MaskattnError(explorer.value.key, **want).message(lang)


def test_a_mask_may_be_bigger_than_the_explorer_allows():
    with pytest.raises(MaskattnError):
        ExploreConfig(past=4000, new=100, window=4096)
    options = ExpectOptions(past=4000, new=100, window=4096, pad=3)  # a model's window on a short mask
    assert options.rule().table_rows(slice(0, 2)).sum(axis=1).tolist() == [3998, 3999]


# --- the command lines -----------------------------------------------------------------


def test_expect_options_are_the_schema_mask_fields():
    from maskattn_tui.cli.commands import build_parser
    from maskattn_tui.explore.fields import FIELDS, MASK_FIELDS

    doctor = build_parser()._subparsers._group_actions[0].choices["doctor"]
    doctor.format_help()  # adds its arguments
    group = next(g for g in doctor._action_groups if any("--expect" in a.option_strings for a in g._group_actions))
    flags = [s for a in group._group_actions for s in a.option_strings if s != "--expect"]
    assert flags == [f.flag for f in FIELDS if f.mask] == [f.flag for f in MASK_FIELDS]
    assert flags == ["--past", "--new", "--pad", "--pad-side", "--no-causal", "--window", "--window-right",
                     "--chunk", "--prefix", "--documents", "--tree", "--bidirectional", "--pad-keys", "--cache-slots",
                     "--sinks"]


@pytest.mark.parametrize("explore_argv", [["--window", "3", "--chunk", "2"], ["--window-right", "1", "--window", "3"],
                                          ["--documents", "3,x"], ["--tree", "-1,0,3,0"], ["--prefix", "off,"],
                                          ["--pad-side", "up"]])
def test_the_same_bad_options_give_the_same_line(tmp_path, capsys, explore_argv):
    from maskattn_tui.cli import main

    np.save(tmp_path / "m.npy", np.tril(np.ones((4, 6), bool), 2))
    assert main(["print", "--past", "2", "--new", "4", *explore_argv]) == 2
    explorer = capsys.readouterr().err
    assert main(["doctor", str(tmp_path / "m.npy"), "--expect", *explore_argv]) == 2
    assert capsys.readouterr().err == explorer and explorer.count("\n") == 1


@pytest.mark.parametrize("spelling", [["--tree", "-1,0,0,1,2"], ["--tree=-1,0,0,1,2"], ["--tree", "-1 0 0 1 2"]])
def test_tree_takes_a_leading_minus_without_equals(tmp_path, capsys, spelling):
    from maskattn_tui.cli import main

    assert main(["json", "--past", "3", "--new", "5", *spelling]) == 0
    cells = json.loads(capsys.readouterr().out)["steps"][0]
    assert cells["query_position_ids"] == [3, 4, 4, 5, 5]
    np.save(tmp_path / "t.npy", table("11110000/11111000/11110100/11111010/11110101"))
    assert main(["doctor", str(tmp_path / "t.npy"), "--expect", *spelling]) == 0
    assert "--tree -1,0,0,1,2" in capsys.readouterr().out


# --- round trips: the engine's table, saved, diagnosed, and expected ----------------------

ROUND_TRIPS = [
    (dict(past=4, new=8, window=3), {"window": 3}),
    (dict(past=0, new=10, window=4, pad=2), {"window": 4, "pad_key_count": 2, "pad_side": "left"}),
    (dict(past=0, new=12, chunk=4), {"chunk": 4, "documents": [4, 4, 4]}),
    (dict(past=0, new=12, chunk=4, pad=2), {"chunk": 4, "documents": [2, 4, 4, 2], "pad_key_count": 2}),
    (dict(past=0, new=16, chunk=4, pad=5), {"chunk": 4, "documents": [1, 4, 4, 4, 3]}),
    (dict(past=2, new=8, chunk=4, pad=3, pad_side="right"), {"chunk": 4, "pad_side": "right"}),
    (dict(past=0, new=8, prefix=3), {"prefix": 3}),
    (dict(past=0, new=8, documents=(3, 2, 3)), {"documents": [3, 2, 3]}),
    (dict(past=0, new=10, window=3, documents=(5, 5)), {"window": 3, "documents": [5, 5]}),
    (dict(past=3, new=5, tree=(-1, 0, 0, 1, 2)), {"tree": [-1, 0, 0, 1, 2]}),
    (dict(past=2, new=6, tree=(-1, -1, 0, 1, 2, 2)), {"tree": [-1, -1, 0, 1, 2, 2]}),
]


def table(text: str) -> np.ndarray:
    return np.array([[c == "1" for c in row] for row in text.split("/")])


def as_options(values: dict) -> list[str]:
    from maskattn_tui.explore.fields import shown_text

    out = []
    for name, value in values.items():
        flag = BY_NAME[name].flag
        out += [flag, shown_text(BY_NAME[name], value)]
    return out


def trip_id(x: object) -> str | None:
    return "-".join(f"{k}{v}" for k, v in x.items() if k in BY_NAME) if isinstance(x, dict) and "past" in x else ""


@pytest.mark.parametrize(("values", "reported"), ROUND_TRIPS, ids=trip_id)
def test_round_trip(tmp_path, capsys, values, reported):
    from maskattn_tui.cli import main

    allowed = np.array(ExploreConfig(**values).table().allowed, dtype=bool)
    np.save(tmp_path / "m.npy", allowed)
    assert main(["doctor", str(tmp_path / "m.npy"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rule"]["differs"] == 0 and doc["leak_count"] == 0
    assert {k: doc[k] for k in reported} == reported
    # the rule's own parameters (the top-level "documents" also spells chunks)
    pattern = {k: doc["rule"][k] for k in ("window", "chunk", "prefix", "documents", "tree")
               if doc["rule"][k] is not None}
    pattern = {k: tuple(v) if isinstance(v, list) else v for k, v in pattern.items()}
    expect = as_options({**pattern, "pad": doc["pad_key_count"], "pad_side": doc["pad_side"] or "left"})
    assert main(["doctor", str(tmp_path / "m.npy"), "--expect", *expect]) == 0, capsys.readouterr().out
    assert main(["doctor", str(tmp_path / "m.npy"), "--expect", *as_options(values)]) == 0
    capsys.readouterr()
