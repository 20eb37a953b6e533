"""`maskattn-tui export`: frames drawn by the real app, checked before
anything is written; bad requests are one line and exit 2."""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from maskattn_tui.cli import main
from maskattn_tui.cli.export import ExportError, parse_size
from maskattn_tui.tui import make_app


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("value,size", [("100x30", (100, 30)), ("60X20", (60, 20)), (" 120x36 ", (120, 36))])
def test_parse_size_accepts(value, size):
    assert parse_size(value) == size


@pytest.mark.parametrize("value,key", [
    ("0x0", "size_too_small"), ("10x5", "size_too_small"), ("59x20", "size_too_small"),
    ("60x19", "size_too_small"), ("abc", "bad_size"), ("100x", "bad_size"), ("", "bad_size"),
    ("-100x30", "bad_size"), ("100x30x2", "bad_size"), ("1000x1000", "size_too_large"),
], ids=["0x0", "10x5", "59x20", "60x19", "abc", "100x", "empty", "negative", "three", "huge"])
def test_parse_size_refuses(value, key):
    with pytest.raises(ExportError) as info:
        parse_size(value)
    assert info.value.key == key


@pytest.mark.parametrize("argv", [
    ["--size", "0x0"], ["--size", "10x5"], ["--size", "abc"], ["--format", "pdf"], ["--lang", "fr"],
    ["--past", "99"],
], ids=["0x0", "10x5", "abc", "format", "lang", "explore-option"])
def test_bad_requests_are_one_line_exit_2(argv, tmp_path, capsys):
    code, out, err = run(["export", "--out", str(tmp_path / "frames"), *argv], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("maskattn-tui: error:") and "Traceback" not in err
    assert not (tmp_path / "frames").exists()


def test_missing_parent_folder(tmp_path, capsys):
    code, _, err = run(["export", "--out", str(tmp_path / "no" / "such"), "--format", "txt"], capsys)
    assert code == 2 and "does not exist" in err and err.count("\n") == 1
    assert not (tmp_path / "no").exists()


def test_out_is_a_file(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    code, _, err = run(["export", "--out", str(tmp_path / "f")], capsys)
    assert code == 2 and "not a folder" in err


@pytest.mark.skipif(not sys.platform.startswith("linux") or not os.path.isdir("/proc/self"), reason="needs /proc")
@pytest.mark.parametrize("out", ["/proc", "/proc/maskattn-frames"])
def test_unwritable_folder(out, capsys):
    # /proc refuses new files even to root (os.access would say yes to root).
    code, _, err = run(["export", "--out", out], capsys)
    assert code == 2 and "cannot write" in err and err.count("\n") == 1


def test_existing_files_need_force_and_nothing_is_written_partially(tmp_path, capsys):
    out = tmp_path / "frames"
    out.mkdir()
    (out / "step3-en.txt").write_text("mine\n")
    code, _, err = run(["export", "--out", str(out), "--format", "txt", "--lang", "en"], capsys)
    assert code == 2 and "--force" in err
    # All targets were checked first: no other frame was written.
    assert sorted(p.name for p in out.iterdir()) == ["step3-en.txt"]
    assert (out / "step3-en.txt").read_text() == "mine\n"
    code, out_text, _ = run(["export", "--out", str(out), "--format", "txt", "--lang", "en", "--force"], capsys)
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [f"step{k}-en.txt" for k in range(1, 6)]
    assert "3 / 5" in (out / "step3-en.txt").read_text()
    assert out_text.splitlines() == [str(out / f"step{k}-en.txt") for k in range(1, 6)]


def test_target_that_is_a_folder(tmp_path, capsys):
    (tmp_path / "step1-en.svg").mkdir()
    code, _, err = run(["export", "--out", str(tmp_path), "--lang", "en"], capsys)
    assert code == 2 and "is a folder" in err


def test_svg_frames_and_the_explore_frame(tmp_path, capsys):
    code, _, _ = run(["export", "--out", str(tmp_path), "--lang", "zh", "--size", "80x24",
                      "--past", "2", "--new", "2"], capsys)
    assert code == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["explore-zh.svg"] + [f"step{k}-zh.svg" for k in range(1, 6)]
    for name in names:
        root = ET.parse(tmp_path / name).getroot()  # well-formed SVG
        assert root.tag.endswith("svg")
    text = (tmp_path / "step2-zh.svg").read_text(encoding="utf-8")
    assert "第&#160;2&#160;/&#160;5&#160;步" in text
    # issue 35: the text's spaces kept by SVG renderers (rsvg-convert collapsed
    # a run's leading ones: "paused  dwell" read "pauseddwell")
    for name in names:
        root = ET.parse(tmp_path / name).getroot()
        assert root.get("{http://www.w3.org/XML/1998/namespace}space") == "preserve", name


def screen_as_shown(app) -> str:
    """The screen as the compositor hands it to the terminal, line by line
    (a different path from export.screen_text, which prints an update)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text.rstrip() for strip in strips) + "\n"


@pytest.mark.parametrize("lang,step,size", [("en", 1, (100, 30)), ("en", 4, (80, 24)), ("zh", 5, (100, 30))],
                         ids=["en-100x30-step1", "en-80x24-step4", "zh-100x30-step5"])
async def test_exported_text_is_what_the_app_shows(tmp_path, lang, step, size):
    from maskattn_tui.cli.export import draw_frames, plan

    frames = [f for f in plan(tmp_path, lang, "txt", 5, explore=False) if f.step == step]
    # draw_frames runs its own event loop: do it in a thread from this test's loop.
    import asyncio
    drawn = await asyncio.to_thread(draw_frames, frames, size, "txt", lang, False)
    exported = drawn[frames[0].path]
    app = make_app(step=step, lang=lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        shown = screen_as_shown(app)
    assert exported == shown
    assert f"{step} / 5" in exported
    assert len(exported.splitlines()) == size[1]


def test_ascii_export_is_pure_ascii(tmp_path, capsys):
    code, _, _ = run(["export", "--out", str(tmp_path), "--format", "txt", "--lang", "en", "--ascii"], capsys)
    assert code == 0
    for path in sorted(tmp_path.iterdir()):
        text = path.read_text(encoding="utf-8")
        assert text.isascii(), (path.name, {c for c in text if not c.isascii()})
    assert "-inf" in (tmp_path / "step4-en.txt").read_text()


def test_export_help_does_not_import_textual():
    import subprocess

    code = ("import sys, io, contextlib\nfrom maskattn_tui.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['export', '--help'])\n    except SystemExit:\n        pass\n"
            "print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
