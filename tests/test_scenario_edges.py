"""Scenario files at their edges (issue 12): reading limits, odd paths,
modes, symlinks and folders when saving."""

from __future__ import annotations

import os
import stat

import pytest

from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore import ExploreConfig
from maskattn_tui.explore.scenario_file import MAX_BYTES, load_scenario, loads_scenario, save_scenario


def refused(call, *args, **kwargs) -> MaskattnError:
    with pytest.raises(MaskattnError) as info:
        call(*args, **kwargs)
    for lang in ("en", "zh"):
        message = info.value.message(lang)
        assert "\n" not in message and len(message) < 500
    return info.value


def test_dev_zero_is_refused_as_a_device_without_reading_it():
    error = refused(load_scenario, "/dev/zero")
    assert error.key == "explore_file_not_regular" and "not a regular file" in error.message("en")


def test_a_file_just_over_the_cap_is_refused(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text("# " + "x" * MAX_BYTES + "\npast = 1\n")
    assert refused(load_scenario, path).key == "explore_file_too_big"


def test_a_deeply_nested_file_is_refused():
    text = "q = " + "[" * 3000 + "]" * 3000 + "\n"
    error = refused(loads_scenario, text, "deep.toml")
    assert "deep.toml" in error.message("en")


@pytest.mark.parametrize("text", ["past = " + "9" * 5000, "q = [[" + "1" * 4400 + ", 0]]",
                                  "v_override = [[" + "2" * 4301 + ", 1.0]]"])
def test_integers_beyond_pythons_digit_limit_are_refused(text):
    error = refused(loads_scenario, text + "\n", "huge.toml")
    assert "huge.toml" in error.message("en")


def test_a_nul_in_a_path_is_refused_on_open_and_save(tmp_path):
    path = str(tmp_path / "x\0y.toml")
    assert refused(load_scenario, path).key == "explore_file_bad_name"
    assert refused(save_scenario, ExploreConfig(), path).key == "explore_file_bad_name"


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_scenario_file_gets_the_umask_mode(tmp_path, mask, mode):
    old = os.umask(mask)
    try:
        path = save_scenario(ExploreConfig(), tmp_path / "s.toml")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_replacing_keeps_the_files_mode(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("past = 1\n")
    path.chmod(0o640)
    save_scenario(ExploreConfig(past=2), path, overwrite=True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and load_scenario(path).past == 2


def test_saving_through_a_symlink_writes_its_target(tmp_path):
    real = tmp_path / "real.toml"
    real.write_text("past = 1\n")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    assert refused(save_scenario, ExploreConfig(past=5), link).key == "explore_file_exists"
    save_scenario(ExploreConfig(past=5), link, overwrite=True)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert load_scenario(real).past == 5


def test_a_folder_is_refused_before_any_question(tmp_path):
    folder = tmp_path / "d.toml"
    folder.mkdir()
    for overwrite in (False, True):
        assert refused(save_scenario, ExploreConfig(), folder, overwrite=overwrite).key == "explore_file_is_dir"
    assert folder.is_dir()
