"""One drawing (issue 19): `print`, `export --format txt` and the app's
panes show the same lines, for every F12 step and an explore
configuration. The app is run at one size; each pane's own block (what its
line-API view holds) is read as text, then found

- on the exported text frame, in the pane's region of the screen, and
- in `print --width W`, W the pane's width, line for line.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from maskattn_tui.cli.export import screen_text, settle
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.patterns import preset_changes
from maskattn_tui.tui import make_app

from helpers import LOCALE_VARS, run_main

SIZE = (160, 48)
EXPLORE = ["--past", "3", "--new", "2", "--pad", "1", "--window", "3"]


def block_text(block) -> list[str]:
    return ["".join(seg.text for seg in block.full(y)).rstrip() for y in range(block.height)]


def run_print(*argv: str) -> str:
    done = run_main("print", *argv, env={"LANG": "C.UTF-8", "NO_COLOR": "1"},
                    drop=(*LOCALE_VARS, "FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS"))
    assert done.returncode == 0, done.stderr
    return done.stdout


async def panes_and_screen(**kwargs) -> tuple[dict, list[str]]:
    """Each figure pane's lines, region and width, and the screen as text
    (export's own screen_text, what `export --format txt` writes)."""
    app = make_app(dwell=10.0, **kwargs)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panes = {}
        for name in ("#grid", "#bars", "#explain"):
            view = app.query_one(name)
            # the width the pane builds its block for (its room less a scrollbar)
            panes[name] = (block_text(view.figure), view.content_region, view.content_width())
        return panes, screen_text(app).split("\n")


def region_lines(screen: list[str], region) -> list[str]:
    return [screen[y][region.x:region.x + region.width].rstrip() if y < len(screen) else ""
            for y in range(region.y, region.y + region.height)]


def contains_run(text: list[str], lines: list[str]) -> bool:
    """`lines` appear one after another in `text` (trailing blanks aside)."""
    n = len(lines)
    return any(text[i:i + n] == lines for i in range(len(text) - n + 1))


CASES = [(f"step{k}", dict(step=k), ["--step", str(k)]) for k in range(1, 6)]
CASES.append(("explore", dict(explore=ExploreConfig(past=3, new=2, pad=1, pad_side="left", window=3)), EXPLORE))
# two presets whose cells name several rules (FC, FT)
CASES += [(name, dict(explore=ExploreConfig().replace(**preset_changes(name))), ["--preset", name])
          for name in ("chunked", "draft-tree")]


@pytest.mark.parametrize("name, app_kwargs, argv", CASES, ids=[c[0] for c in CASES])
def test_print_export_and_the_panes_draw_the_same_lines(name, app_kwargs, argv):
    panes, screen = asyncio.run(panes_and_screen(**app_kwargs))
    grid, grid_region, width = panes["#grid"]
    bars, bars_region, bars_width = panes["#bars"]
    assert grid and bars
    # The exported frame shows each pane's first lines, exactly, in its region.
    for lines, region in ((grid, grid_region), (bars, bars_region)):
        shown = min(len(lines), region.height)
        assert region_lines(screen, region)[:shown] == lines[:shown], name
    # print at the grid pane's width: the same figure and, at the bars pane's
    # width, the same bars, line for line.
    printed = run_print(*argv, "--width", str(width)).split("\n")
    assert contains_run(printed, grid), name
    printed_bars = printed if bars_width == width else run_print(*argv, "--width", str(bars_width)).split("\n")
    assert contains_run(printed_bars, bars), name
    # The explanation's caption (its first lines, up to the first blank line).
    explain, _, explain_width = panes["#explain"]
    caption = explain[:explain.index("")] if "" in explain else explain
    caption_print = run_print(*argv, "--width", str(explain_width)).split("\n")
    assert contains_run(caption_print, caption), name
    if name == "explore":
        # by hand: PAD is k0; a window of 3 blocks k <= p - 3 (q3: k0; q4: k0, k1)
        rows = {m[1]: m[2].split() for line in grid if (m := re.match(r"^.. (q\d+)\s*│(.*)$", line))}
        assert rows == {"q3": ["PW", "✓", "✓", "✓", "F"], "q4": ["PW", "W", "✓", "✓", "✓"]}
