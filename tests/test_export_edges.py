"""Export edges from issue 12: file modes under the umask, a dangling
symlink at a target, an over-long name, and a set written whole or not at all."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from maskattn_tui.cli import export, main
from maskattn_tui.cli.export import ExportError


@pytest.fixture
def umask():
    def set_to(mask):
        old = os.umask(mask)
        restore.append(old)
    restore: list[int] = []
    yield set_to
    for old in restore[:1]:
        os.umask(old)


def frames(out, fmt="txt"):
    return export.plan(out, "en", fmt, 5, explore=False)


def drawn_for(out, text="new"):
    return {f.path: f"{text} {f.name}\n" for f in frames(out)}


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_exported_files_get_the_mode_of_any_new_file(tmp_path, umask, mask, mode):
    umask(mask)
    out = tmp_path / "frames"
    export.write_all(out, drawn_for(out))
    for frame in frames(out):
        assert stat.S_IMODE(frame.path.stat().st_mode) == mode, oct(frame.path.stat().st_mode)


def test_a_dangling_symlink_at_a_target_needs_force(tmp_path):
    out = tmp_path / "frames"
    out.mkdir()
    (out / "step2-en.txt").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ExportError) as info:
        export.check_targets(out, frames(out), force=False)
    assert info.value.key == "exists"
    export.check_targets(out, frames(out), force=True)  # with --force: allowed


def test_an_over_long_folder_name_is_one_line(tmp_path, capsys):
    code = main(["export", "--out", str(tmp_path / ("d" * 300)), "--format", "txt"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "too long" in err.lower()
    assert len(err) < 400


def test_a_failure_while_writing_leaves_the_old_set_whole(tmp_path, monkeypatch):
    out = tmp_path / "frames"
    export.write_all(out, drawn_for(out, "old"))
    real = export.write_temp
    calls = []

    def full_disk(target, text, **kw):
        calls.append(target)
        if len(calls) == 4:
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        return real(target, text, **kw)

    monkeypatch.setattr(export, "write_temp", full_disk)
    with pytest.raises(ExportError) as info:
        export.write_all(out, drawn_for(out, "new"))
    assert all(f.path.read_text() == f"old {f.name}\n" for f in frames(out))
    assert sorted(p.name for p in out.iterdir()) == sorted(f.path.name for f in frames(out))  # no temp left
    message = info.value.message("en")
    assert "No space left" in message and "nothing was replaced" in message


def test_a_failure_while_renaming_says_exactly_what_was_written(tmp_path, monkeypatch):
    out = tmp_path / "frames"
    export.write_all(out, drawn_for(out, "old"))
    real = os.replace
    done = []

    def flaky(src, dst):
        if len(done) == 2:
            raise OSError(errno.EIO, "Input/output error", dst)
        done.append(dst)
        return real(src, dst)

    monkeypatch.setattr(export.os, "replace", flaky)
    with pytest.raises(ExportError) as info:
        export.write_all(out, drawn_for(out, "new"))
    message = info.value.message("en")
    names = [f.path.name for f in frames(out)]
    assert names[0] in message and names[1] in message  # replaced
    assert names[2] in message  # the one that failed
    assert sorted(p.name for p in out.iterdir()) == sorted(names)  # no temp left
