"""The one schema of explore fields (explore.fields) and what derives from it:
validation, argparse, scenario-file keys, the session's text fields, the
panel's controls; and the session's transitions for the pattern fields and
presets."""

from __future__ import annotations

import argparse

import pytest

from maskattn_tui.cli.explore_options import OPTIONS, add_explore_arguments, config_from_args
from maskattn_tui.engine.softmax import EMPTY_ROW_POLICIES
from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.fields import BY_NAME, FIELDS, MASK_FIELDS, OPTION_FIELDS, POLICIES, parse_text, shown_text
from maskattn_tui.explore.mask_params import MaskParams
from maskattn_tui.explore.patterns import PRESETS, matching_preset
from maskattn_tui.explore.scenario_file import KEY_TYPES
from maskattn_tui.explore.session import TEXT_FIELDS, ExploreSession
from maskattn_tui.i18n import LANGS, catalog


def test_every_surface_lists_the_schema_fields():
    names = [f.name for f in FIELDS]
    assert list(KEY_TYPES) == names
    assert set(OPTIONS) == {f.name for f in OPTION_FIELDS}
    assert set(TEXT_FIELDS) == {f.name for f in FIELDS if f.control}
    assert POLICIES == EMPTY_ROW_POLICIES
    defaults = ExploreConfig()
    for f in FIELDS:
        assert getattr(defaults, f.name) == f.default, f.name


def test_one_record_of_mask_parameters_for_explore_and_expect():
    import dataclasses

    from maskattn_tui.doctor.expect import ExpectOptions

    record = {f.name: f.default for f in dataclasses.fields(MaskParams)}
    assert record == {f.name: f.default for f in MASK_FIELDS}
    for cls in (ExploreConfig, ExpectOptions):  # neither declares a mask field of its own
        assert issubclass(cls, MaskParams)
        assert not set(cls.__annotations__) & set(record), cls


def test_every_field_has_help_and_label_in_both_languages():
    strings = catalog()
    for f in OPTION_FIELDS:
        assert set(strings[f.help_key]) >= set(LANGS), f.name
    for f in FIELDS:
        if f.control:
            assert set(strings[f.label_key]) >= set(LANGS), f.name


def test_argparse_has_one_option_per_schema_field():
    parser = argparse.ArgumentParser()
    add_explore_arguments(parser)
    flags = {s for a in parser._actions for s in a.option_strings}
    assert {f.flag for f in OPTION_FIELDS} <= flags
    args = parser.parse_args(["--past", "0", "--new", "8", "--documents", "3,2,3", "--window", "2"])
    assert config_from_args(args) == ExploreConfig(past=0, new=8, documents=(3, 2, 3), window=2)


@pytest.mark.parametrize("name, text, value", [
    ("window", "3", 3), ("window", "off", None), ("window", " ", None),
    ("documents", "3, 2,3", (3, 2, 3)), ("tree", "-1,0,0", (-1, 0, 0)), ("tree", "off", None),
    ("past", "+4", 4), ("temperature", "0.5", 0.5), ("causal", "off", False),
])
def test_typed_text_reads_back(name, text, value):
    f = BY_NAME[name]
    assert parse_text(f, text) == value
    assert parse_text(f, shown_text(f, value)) == value


def on(**kw) -> ExploreSession:
    return ExploreSession(config=ExploreConfig(**kw), active=True)


def test_setting_a_pattern_field_and_switching_it_off():
    s, problem = on(past=4, new=2).set_field("window", "3")
    assert problem is None and s.config.window == 3
    s, problem = s.set_field("window", "off")
    assert problem is None and s.config.window is None


@pytest.mark.parametrize("name, text, key, words", [
    ("window", "0", "tui.x.err.kept", "window must be from 1 to 64"),
    ("window", "x", "tui.x.err.optional_whole", "whole number or off"),
    ("documents", "3,3", "tui.x.err.kept", "sum to 6, but past + new = 5"),
    ("documents", "3;x", "tui.x.err.lengths", "lengths separated by commas"),
    ("tree", "-1,0,5,1,2", "tui.x.err.kept", "tree: one parent per new token"),
    ("chunk", "2", "tui.x.err.kept", "window and chunk do not combine"),
])
def test_a_refused_value_keeps_the_old_one_and_says_why(name, text, key, words):
    before = on(past=3, new=2, window=2)
    after, problem = before.set_field(name, text)
    assert after is before
    assert problem.key == key and problem.params["field"] == name
    assert words in problem.message("en")
    assert problem.message("zh") != problem.message("en")


def test_presets_set_the_pattern_and_keep_seed_temperature_policy():
    base = on(seed=7, temperature=2.0, empty_row_policy="zeros", pad=1)
    for name in PRESETS:
        s, problem = base.set_field("preset", name)
        assert problem is None, name
        c = s.config
        assert (c.seed, c.temperature, c.empty_row_policy, c.pad) == (7, 2.0, "zeros", 0)
        assert matching_preset(c) == name
    s, _ = base.set_field("preset", "sliding-window")
    assert ["".join("1" if x else "0" for x in r) for r in s.config.table().allowed] == ["001110", "000111"]
    s, _ = base.set_field("preset", "draft-tree")
    assert s.config.table().query_position_ids == (3, 4, 4, 5, 5)
    after, problem = base.set_field("preset", "gpt-9")
    assert after is base and problem is not None


def test_a_preset_is_no_longer_matched_after_a_change():
    s, _ = on().set_field("preset", "packed")
    s, _ = s.set_field("seed", "3")
    assert matching_preset(s.config) == "packed"  # the seed is not part of a preset
    s, _ = s.set_field("window", "2")
    assert matching_preset(s.config) is None


def test_resizing_under_documents_is_refused_with_the_reason():
    s, _ = on().set_field("preset", "packed")
    after, problem = s.set_field("new", "9")
    assert after is s and "documents" in problem.message("en")
    with pytest.raises(MaskattnError):
        s.config.replace(new=9)
