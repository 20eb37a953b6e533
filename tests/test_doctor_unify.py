"""The doctor's --expect and the explorer share one schema and one set of
rules: doctor.rules' vectorised tables equal the engine's (ExploreConfig
.table()) cell by cell over generated configurations, and a configuration
the explorer refuses is refused by ExpectOptions with the same message."""

import itertools
import random

import numpy as np
import pytest

from maskattn_tui.doctor.expect import ExpectOptions
from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.patterns import NEED_CAUSAL, PATTERN_FIELDS, REFUSED_PAIRS

#: Every set of pattern rules the explorer accepts together.
ACCEPTED = [set(s) for n in range(3) for s in itertools.combinations(PATTERN_FIELDS, n)
            if not any(a in s and b in s for a, b in REFUSED_PAIRS)]


def test_the_accepted_sets_are_the_ones_the_issue_names():
    # issue 10: a window inside packed documents combines; every rule alone; none
    assert sorted(map(sorted, ACCEPTED)) == sorted([[], ["chunk"], ["documents"], ["prefix"], ["tree"],
                                                    ["window"], ["documents", "window"]])


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
            "tree": lambda: tuple(rng.randint(-1, i - 1) for i in range(new))}
    values.update({r: pick[r]() for r in rules})
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
