"""A doctor reading told back as --expect flags states the same table
(numpy only): every rule ExpectOptions makes, over generated
configurations of every accepted rule set, goes through
options_of_reading and back to the same cells; and the flags read back
through the command line's own parsing."""

import argparse

import numpy as np
import pytest

from maskattn_tui.doctor.expect import ExpectOptions, expected_allowed
from maskattn_tui.doctor.expect_args import expect_options, options_of_reading, reading_flags
from maskattn_tui.doctor.rules import Rule

from test_doctor_unify import generated


@pytest.mark.parametrize("seed", range(200))
def test_a_rule_told_as_options_gives_the_same_table(seed):
    options = ExpectOptions(**generated(seed))
    rule = options.rule()
    back = options_of_reading(rule)
    assert back is not None, options
    assert np.array_equal(expected_allowed(back), rule.table_rows(slice(None))), (options, back)


@pytest.mark.parametrize("rule, flags", [
    (Rule(rows=3, keys=12, offset=5), "--past 5 --new 3 --cache-slots 4"),
    (Rule(rows=8, keys=8, offset=0, causal=False, window=3, right=2), "--past 0 --new 8 --no-causal --window 2"),
    (Rule(rows=8, keys=8, offset=0, causal=False, window=3, right=0),
     "--past 0 --new 8 --no-causal --window 2 --window-right 0"),
    (Rule(rows=10, keys=10, offset=0, blocks=((2, 5), (6, 9))), "--past 0 --new 10 --bidirectional 2-4,6-8"),
    (Rule(rows=2, keys=7, offset=5, gaps=((3, 5),)), "--past 5 --new 2 --pad-keys 3-4"),
    (Rule(rows=3, keys=12, offset=5, pad=5, pad_side="right"), "--past 5 --new 3 --pad-keys 7 --cache-slots 4"),
])
def test_the_flags_of_each_family(rule, flags):
    assert reading_flags(rule) == flags
    args = argparse.Namespace(**{f"expect_{k.lstrip('-').replace('-', '_')}": v
                                 for k, v in zip(flags.split()[::2], flags.split()[1::2])})
    if "--no-causal" in flags:  # a flag without a value
        words = flags.split()
        i = words.index("--no-causal")
        rest = words[:i] + words[i + 1:]
        args = argparse.Namespace(expect_causal=False, **{f"expect_{k.lstrip('-').replace('-', '_')}": v
                                                          for k, v in zip(rest[::2], rest[1::2])})
    options = expect_options((rule.rows, rule.keys), args)
    assert np.array_equal(expected_allowed(options), rule.table_rows(slice(None)))
