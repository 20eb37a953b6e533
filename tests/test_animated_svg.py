"""`export --format animated-svg`: one self-contained SVG that plays the
five steps, each frame drawn by the app, in a loop. Checked in headless
Chromium (each step's caption is in the frame shown at its time, and only
that frame is shown), in rsvg-convert (the first frame, as a PNG), and
for size (< 300 KB at 100x30)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from browser import chromium, missing
from helpers import run_main

SHOTS = Path("/tmp")


def _titles(lang: str) -> list[str]:
    doc = json.loads(run_main("json", "--lang", lang).stdout)
    return [step["title"] for step in doc["steps"]]


@pytest.fixture(scope="module")
def walkthrough(tmp_path_factory):
    out = tmp_path_factory.mktemp("animated")
    svgs = {}
    for lang in ("en", "zh"):
        ran = run_main("export", "--out", str(out), "--format", "animated-svg", "--lang", lang, "--dwell", "1.5")
        assert ran.returncode == 0, ran.stderr
        svgs[lang] = Path(ran.stdout.strip())
    return svgs


def test_one_self_contained_file_under_300_kb(walkthrough):
    for lang, path in walkthrough.items():
        assert path.name == f"walkthrough-{lang}.svg"
        text = path.read_text(encoding="utf-8")
        assert len(text.encode()) < 300_000
        assert "http" not in text.replace("http://www.w3.org/2000/svg", "")  # no font, image or script from elsewhere
        assert "<script" not in text and text.count('<g class="frame f') == 5
        # 5 frames x 1.5 s, each visible for its fifth of the loop
        assert "animation: show5 7.5s step-end infinite" in text and "40% { visibility: visible; }" in text


def test_rsvg_convert_draws_the_first_frame(walkthrough):
    if shutil.which("rsvg-convert") is None:
        missing("rsvg-convert is not installed (apt-get install librsvg2-bin)")
    png = SHOTS / "maskattn-animated-first.png"
    subprocess.run(["rsvg-convert", str(walkthrough["en"]), "-o", str(png)], check=True, timeout=60)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000


#: The frames' visibility at time `at` (ms) of the loop, all animations paused there.
_AT = """
const at = arguments[0];
for (const a of document.getAnimations()) { a.pause(); a.currentTime = at; }
return [...document.querySelectorAll('g.frame')].map(g => [getComputedStyle(g).visibility,
    [...g.querySelectorAll('text')].map(t => t.textContent).join('')]);
"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chromium_plays_each_step_in_turn(walkthrough, lang):
    titles = _titles(lang)
    browser = chromium(1300, 850)
    try:
        browser.get(walkthrough[lang].as_uri())
        time.sleep(0.3)
        for k in range(5):
            frames = browser.execute_script(_AT, k * 1500 + 700)  # the middle of step k + 1's dwell
            shown = [i for i, (visibility, _) in enumerate(frames) if visibility == "visible"]
            assert shown == [k], (k, [v for v, _ in frames])
            text = re.sub(r"\s+", " ", frames[k][1].replace("\u00a0", " "))
            assert titles[k] in text and (f"{k + 1} / 5" in text), (titles[k], text[:300])
            if k in (0, 3):
                browser.get_screenshot_as_file(str(SHOTS / f"maskattn-animated-{lang}-step{k + 1}.png"))
        # the loop: after the fifth step, the first again
        frames = browser.execute_script(_AT, 5 * 1500 + 700)
        assert [v for v, _ in frames] == ["visible"] + ["hidden"] * 4
    finally:
        browser.quit()


def test_the_readme_opens_on_the_committed_animation():
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    first = re.search(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert first and first.group(1) == "screenshots/walkthrough-en.svg"
    text = (root / first.group(1)).read_text(encoding="utf-8")
    assert len(text.encode()) < 300_000 and text.count('<g class="frame f') == 5
    assert 'viewBox="0 0 1238 782.0"' in text  # 100x30, as export draws it by default
    for k in range(1, 6):
        assert f"step&#160;{k}&#160;/&#160;5" in text


def test_explore_options_are_refused_and_nothing_is_written(tmp_path):
    ran = run_main("export", "--out", str(tmp_path / "out"), "--format", "animated-svg", "--past", "2")
    assert ran.returncode == 2 and "explore options" in ran.stderr and not (tmp_path / "out").exists()
