"""Scenario files: round trip, atomic no-overwrite save, and a table of bad
files, each with the message fragments it must show (file, key, problem)."""

from __future__ import annotations

import os
import random
import sys

import pytest

from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore import ExploreConfig, dumps_scenario, load_scenario, loads_scenario, save_scenario
from helpers import with_score, with_v

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def _configs():
    rng = random.Random(11)
    yield ExploreConfig()
    yield ExploreConfig(past=0, new=1, pad=1, pad_side="right", causal=False, temperature=0.1,
                        empty_row_policy="uniform", seed=2**32 - 1)
    awkward = [0.1, -2.5e10, 1e-300, 1 / 3, -0.0, 123456789.123, 5e-324, 1.7976931348623157e307]
    # (the largest float goes in V: in K its score q.k would be beyond the float range, refused on load)
    yield ExploreConfig(past=2, new=2, q=[[0.1, 1 / 3], [-0.0, 5]],
                        k=[[a, b] for a, b in zip(awkward[:4], awkward[4:])],
                        v=[[1e-300, 2], [3, 4], [5, 6], [7, 1.7976931348623157e308]])
    for _ in range(60):
        past, new = rng.randint(0, 32), rng.randint(1, 32)
        c = ExploreConfig(
            past=past, new=new, pad=rng.randint(0, past + new), pad_side=rng.choice(("left", "right")),
            causal=rng.random() < 0.5, temperature=max(0.1, round(rng.uniform(0.1, 10), rng.randint(0, 6))),
            empty_row_policy=rng.choice(("error", "nan", "zeros", "uniform")), seed=rng.randint(0, 2**32 - 1),
        )
        if rng.random() < 0.4:
            q, k, v = c.inputs()
            c = c.replace(q=[[x * rng.uniform(-3, 3) for x in r] for r in q], k=k, v=v)
        for _ in range(rng.randint(0, 3)):
            c = with_v(c, rng.randrange(c.length), rng.choice((9999, rng.uniform(-1e6, 1e6))))
            c = with_score(c, rng.randrange(c.new), rng.randrange(c.length), rng.uniform(-20, 20))
        yield c


@pytest.mark.parametrize("config", list(_configs()))
def test_round_trip(config, tmp_path):
    text = dumps_scenario(config)
    tomllib.loads(text)  # valid TOML for a standard reader
    assert loads_scenario(text) == config
    path = save_scenario(config, tmp_path / "s.toml")
    assert load_scenario(path) == config


def test_only_set_keys_are_written():
    text = dumps_scenario(ExploreConfig())
    assert "q =" not in text and "v_override" not in text
    text = dumps_scenario(with_v(ExploreConfig(past=0, new=1, v=[[5]]), 0, 9999))
    assert "v = [[5.0]]" in text and "v_override = [[0, 9999.0]]" in text


def test_an_empty_file_is_the_default_configuration(tmp_path):
    p = tmp_path / "empty.toml"
    p.write_text("")
    assert load_scenario(p) == ExploreConfig()


def test_save_never_overwrites_unless_asked(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text("keep me")
    with pytest.raises(MaskattnError) as info:
        save_scenario(ExploreConfig(), p)
    assert "already exists" in str(info.value) and str(p) in str(info.value)
    assert p.read_text() == "keep me"
    save_scenario(ExploreConfig(past=7), p, overwrite=True)
    assert load_scenario(p).past == 7
    assert sorted(os.listdir(tmp_path)) == ["s.toml"]  # no temporary file left


def test_save_is_atomic_and_cleans_up_on_failure(tmp_path, monkeypatch):
    p = tmp_path / "s.toml"
    save_scenario(ExploreConfig(past=1), p)

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(MaskattnError) as info:
        save_scenario(ExploreConfig(past=9), p, overwrite=True)
    assert "cannot be written" in str(info.value) and "No space left" in str(info.value)
    assert load_scenario(p).past == 1  # the old file is intact
    assert sorted(os.listdir(tmp_path)) == ["s.toml"]


def test_save_into_a_missing_directory(tmp_path):
    with pytest.raises(MaskattnError) as info:
        save_scenario(ExploreConfig(), tmp_path / "nope" / "s.toml")
    assert "cannot be written" in str(info.value)


def test_saved_file_is_readable_by_others(tmp_path):
    p = save_scenario(ExploreConfig(), tmp_path / "s.toml")
    assert p.stat().st_mode & 0o044 == 0o044


BAD_FILES = [
    ("not TOML", "past = = 3", ["not valid TOML"]),
    ("unknown key", "past = 3\npasts = 4", ["unknown key 'pasts'", "known keys: past, new"]),
    ("a table", "[explore]\npast = 3", ["unknown key 'explore'"]),
    ("past as text", 'past = "three"', ["key 'past'", "whole number", "'three'"]),
    ("past as float", "past = 3.0", ["key 'past'", "whole number"]),
    ("past as bool", "past = true", ["key 'past'", "whole number"]),
    ("causal as text", 'causal = "yes"', ["key 'causal'", "true or false"]),
    ("temperature as text", 'temperature = "hot"', ["key 'temperature'", "must be a number"]),
    ("temperature nan", "temperature = nan", ["key 'temperature'", "finite", "nan"]),
    ("temperature inf", "temperature = inf", ["key 'temperature'", "finite", "inf"]),
    ("temperature too hot", "temperature = 20", ["key 'temperature'", "from 0.1 to 10", "20"]),
    ("temperature zero", "temperature = 0", ["key 'temperature'", "from 0.1 to 10"]),
    ("past too big", "past = 40", ["key 'past'", "from 0 to 32", "40"]),
    ("new zero", "new = 0", ["key 'new'", "from 1 to 32"]),
    ("pad too many", "past = 3\nnew = 2\npad = 9", ["key 'pad'", "past + new = 5", "9"]),
    ("pad side", 'pad_side = "middle"', ["key 'pad_side'", "left or right"]),
    ("policy", 'empty_row_policy = "ignore"', ["key 'empty_row_policy'", "unknown empty-row policy"]),
    ("seed negative", "seed = -1", ["key 'seed'", "from 0 to 4294967295"]),
    ("q not rows", "q = 5", ["key 'q'", "array of rows"]),
    ("q flat", "q = [1, 0]", ["key 'q'", "array of rows"]),
    ("q wrong rows", "new = 2\nq = [[1, 0]]", ["key 'q'", "2 rows", "got 1"]),
    ("q text", 'new = 1\npast = 0\nq = [["a", "b"]]', ["key 'q'", "q[0][0] is not a number"]),
    ("k ragged", "past = 0\nnew = 2\nk = [[1, 0], [1]]", ["key 'k'", "not rectangular"]),
    ("v nan", "past = 0\nnew = 1\nv = [[nan]]", ["key 'v'", "v[0][0] must be finite"]),
    ("v inf", "past = 0\nnew = 2\nv = [[1], [-inf]]", ["key 'v'", "v[1][0] must be finite"]),
    ("q width", "past = 0\nnew = 1\nq = [[1, 0, 0]]", ["key 'q'", "3 values but k rows have 2"]),
    ("v_override key", "v_override = [[9, 1.0]]", ["key 'v_override'", "from 0 to 4", "9"]),
    ("v_override shape", "v_override = [[1]]", ["key 'v_override'", "pair [key, value]"]),
    ("v_override not list", "v_override = 3", ["key 'v_override'", "array of entries"]),
    ("score_override row", "score_override = [[5, 0, 1.0]]", ["key 'score_override'", "query row", "from 0 to 1"]),
    ("score_override inf", "score_override = [[0, 0, inf]]", ["key 'score_override'", "finite"]),
]


@pytest.mark.parametrize("content, fragments", [(c, f) for _, c, f in BAD_FILES], ids=[i for i, _, _ in BAD_FILES])
def test_bad_files(content, fragments, tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(MaskattnError) as info:
        load_scenario(p)
    message = str(info.value)
    assert "\n" not in message
    assert str(p) in message
    for fragment in fragments:
        assert fragment in message
    assert str(p) in info.value.message("zh")


def test_missing_file_directory_and_bytes(tmp_path):
    cases = [
        (tmp_path / "nope.toml", "no such scenario file"),
        (tmp_path, "is a directory"),
    ]
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"past = 3\n\xff\xfe")
    cases.append((binary, "not UTF-8"))
    for path, fragment in cases:
        with pytest.raises(MaskattnError) as info:
            load_scenario(path)
        assert fragment in str(info.value) and str(path) in str(info.value)


def test_messages_in_chinese_name_file_and_key(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("past = 40")
    with pytest.raises(MaskattnError) as info:
        load_scenario(p)
    zh = info.value.message("zh")
    assert zh == f"{p}：键 'past'：past 必须在 0 到 32 之间（收到 40）"
