"""The experiments and the API lens can be read in the app at every size,
in both languages: their pane is titled, its prose is wrapped to the pane
(only a table wider than the pane scrolls sideways), nothing is lost or
cut mid-word, every line can be scrolled to, and at 160x48 the pane gets
the room the grid does not use."""

from __future__ import annotations

import io
import re
from collections import Counter

import pytest
from rich.cells import cell_len
from rich.console import Console

from maskattn_tui.cli.export import settle
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.experiments import EXPERIMENTS
from maskattn_tui.i18n import t
from maskattn_tui.tui import make_app


def lines_of(view) -> list[str]:
    figure = view.figure
    return ["".join(s.text for s in figure.full(y)).rstrip() for y in range(figure.height)]


def alone(renderable, width: int = 1000) -> list[str]:
    """The same parts as Rich draws them on a console `width` wide."""
    console = Console(width=width, record=False, color_system=None, legacy_windows=False)
    return ["".join(s.text for s in line).rstrip()
            for line in console.render_lines(renderable, console.options, pad=False)]


def words(lines: list[str]) -> Counter:
    return Counter(w for line in lines for w in line.split() if any(c.isalnum() for c in w))


def letters(lines: list[str]) -> Counter:
    return Counter(c for line in lines for c in line if c.isalnum())


def tabular(line: str) -> bool:
    """A line of a table or of code: rules, column bars, columns aligned by
    runs of spaces, an indented source line (prose has single spaces
    between its words and starts at the pane's edge)."""
    return ("│" in line or "─" in line or line.startswith("    ")
            or re.search(r"\S  +\S", line.strip()) is not None)


CONFIG = ExploreConfig(past=2, new=6, chunk=4)


@pytest.mark.parametrize("size, zoom", [((100, 30), False), ((160, 48), False), ((80, 24), True)],
                         ids=["100x30", "160x48", "80x24-zoom"])
async def test_the_lab_pane_wraps_prose_and_keeps_every_word(size, zoom):
    # Read in both languages (L: the pane is drawn again in the other, as at
    # a start in it), at each width the pane is drawn at.
    app = make_app(lang="en", explore=CONFIG, experiments=EXPERIMENTS, lens=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        if zoom:
            await pilot.press("z")
            await settle(pilot)
        for _ in range(2):
            lang = app.model.lang
            assert tuple(app.size) == size and app.model.zoomed == zoom, (size, lang)
            await check_the_lab_pane(app, pilot, lang, case=(size, lang))
            await pilot.press("L")
            await settle(pilot)
            assert app.model.lang != lang


async def check_the_lab_pane(app, pilot, lang: str, case: object = None) -> None:
    """The pane at the size the app has now: every word kept, wide lines only
    tables, the end reachable by scrolling. `case`: named in the failures."""
    lab = app.query_one("#lab-pane")
    assert lab.region.area > 0, case
    assert str(lab.border_title).startswith(t("tui.x.panel.lab", lang).split(" · ")[0]), case
    room = lab.scrollable_content_region.width
    shown = lines_of(lab)
    wide = [line for line in shown if cell_len(line) > room]
    assert all(tabular(line) for line in wide), (case, [line for line in wide if not tabular(line)])
    whole = alone(lab.renderable(app.model))
    # nothing lost, no word broken in two by the wrapping
    assert letters(shown) == letters(whole), case
    if lang == "en":
        assert words(shown) == words(whole), case
    # the last line and the right end of the widest one can be scrolled to
    lab.scroll_end(animate=False, immediate=True)
    await settle(pilot)
    on_screen = [lab.render_line(y).text.rstrip() for y in range(lab.size.height)]
    last = next(line for line in reversed(shown) if line.strip())
    assert any(last[-10:].strip() in line for line in on_screen), case
    assert lab.max_scroll_x + room >= max(cell_len(line) for line in shown), case


async def test_at_160x48_the_lab_pane_takes_the_room_the_grid_does_not_use():
    app = make_app(explore=CONFIG, lens=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        grid, lab = app.query_one("#grid"), app.query_one("#lab-pane")
        figure_width = grid.figure.width + 3  # padding and the scrollbar's column
        assert grid.region.width <= max(figure_width, 50)
        assert lab.region.x == grid.region.right and lab.region.right == 160
        assert lab.region.width >= 160 - 26 - max(figure_width, 50)


def help_text(lang: str, mode: str) -> str:
    from maskattn_tui.tui.help import keys_table

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(keys_table(lang, "^p", mode=mode))
    return " ".join(console.export_text().split())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_names_the_keys_that_scroll_the_lab_pane(lang):
    text = help_text(lang, "explore")
    for key in ("tui.key.scroll_right", "tui.key.scroll_left", "tui.key.page_down", "tui.key.page_up"):
        assert t(key, lang) in text
    assert "scroll figure right" not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("mode", ["figure", "explore", "mask"])
def test_help_shows_this_modes_keys_first_and_tab(lang, mode):
    from maskattn_tui.model.commands import COMMANDS

    text = help_text(lang, mode)
    here = t("tui.help.here", lang, mode=t(f"tui.help.mode_{mode}", lang))
    elsewhere = t("tui.help.elsewhere", lang)
    assert text.index(here) < text.index(elsewhere)
    head = text[:text.index(elsewhere)]
    for command in COMMANDS:
        said = t(command.help, lang)
        if mode in command.modes:
            assert said in head, command.id
        elif said not in (t(c.help, lang) for c in COMMANDS if mode in c.modes):
            assert said not in head, command.id  # e.g. mask mode's `a` is not under explore mode's keys
    assert (t("tui.help.tab", lang) in head) == (mode == "explore")


async def test_help_opened_in_explore_mode_lists_explore_keys_first():
    from maskattn_tui.tui.help import HelpScreen

    app = make_app(explore=CONFIG)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen) and app.screen.mode == "explore"


async def test_the_explanation_says_which_row_it_is_about():
    """Steps 1-3 in both languages, one app: each step entered by its key
    (→, or Home for the first) starts on its focus row, as a start at it does."""
    from maskattn_tui.lesson.f12 import load_f12

    steps = load_f12().steps
    app = make_app(step=1, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for lang, keys in (("en", ((), ("right",), ("right",))), ("zh", (("L", "home"), ("right",), ("right",)))):
            for step, key in enumerate(keys, start=1):
                await pilot.press(*key)
                await settle(pilot)
                case = (lang, step)
                assert (app.model.player.step, app.model.lang) == (step, lang), case
                spec = steps[step - 1]
                focus = spec.focus_rows[0]
                explain = app.query_one("#explain")
                head = " ".join(lines_of(explain)[:4])
                assert f"▶ q{spec.query_positions[focus]}" in head and "●" in head, (case, head)
                await pilot.press("down" if focus < 2 else "up")
                await settle(pilot)
                row = app.model.player.row
                assert row != focus, case
                head = " ".join(lines_of(explain)[:4])
                assert f"▶ q{spec.query_positions[focus]}" in head, (case, head)
                assert f"● q{spec.query_positions[row]}" in head, (case, head)  # the row the bars show
                bars = " ".join(lines_of(app.query_one("#bars"))[:3])
                assert str(spec.query_positions[row]) in bars, (case, bars)


async def test_t_means_one_thing_on_the_screen():
    """A draft tree's cells are marked T: the temperature is not called T
    on the same screen (the condition line spells it out). In English, then
    in Chinese (L), one app."""
    app = make_app(lang="en", explore=ExploreConfig(past=2, new=3, tree=(-1, 0, 0)))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for lang in ("en", "zh"):
            if lang != app.model.lang:
                await pilot.press("L")
                await settle(pilot)
            assert app.model.lang == lang
            condition = str(app.query_one("#condition").render())
            legend = "\n".join(lines_of(app.query_one("#grid")))
            assert " T " in legend or "T " in legend, lang  # the tree's glyph
            assert "T = " not in condition and "T\u00a0=" not in condition, (lang, condition)
            assert "= 1" in condition or "=\u00a01" in condition, (lang, condition)  # the temperature is still there
