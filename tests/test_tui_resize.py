"""A terminal resize lays the screen out again at once, with no key
pressed: after every resize across each breakpoint (too narrow, too short,
normal, wide), both ways, the panes' regions are what tui/layout.py's
arithmetic gives for the new size (where the explanation is under the
figure, the figure pane's height is the step's own, tui/step_fit.py's), in
figure mode, explore mode, with an experiment and the lens on, and zoomed."""

from __future__ import annotations

import itertools

import pytest

from maskattn_tui.cli.export import settle
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.render.palette import Palette
from maskattn_tui.tui import layout as sizes
from maskattn_tui.tui import make_app
from maskattn_tui.tui.step_fit import per_step, step_height
from maskattn_tui.tui.widgets.condition import condition_lines

#: One size on each side of every breakpoint (width 60 and 140, height 20),
#: and the audit's three sizes.
SIZES = [(59, 30), (100, 19), (80, 24), (100, 30), (139, 40), (160, 48)]
#: One size per breakpoint class (too narrow, too short, normal, wide): every
#: class to every other (each resize costs a relayout and the reading pane
#: drawn again, ~0.3 s); the figure adds the rest of SIZES on its way.
CLASSES = [(59, 30), (100, 19), (100, 30), (160, 48)]
#: Explore mode at the documented minimum (the weights under the grid) and
#: around it.
NARROW = [(60, 20), (59, 20), (80, 24), (160, 48)]


def every_pair(nodes: list) -> list:
    """A walk from nodes[0] that goes from every node to every other one
    (each ordered pair once: a circuit of the complete directed graph)."""
    left = {a: [b for b in nodes if b != a] for a in nodes}
    walk, stack = [], [nodes[0]]
    while stack:
        here = stack[-1]
        if left[here]:
            stack.append(left[here].pop())
        else:
            walk.append(stack.pop())
    return walk[::-1]


def expected(app, width: int, height: int) -> sizes.Layout:
    """The layout by the arithmetic alone, for `width` x `height`."""
    model, grid = app.model, app.query_one("#grid")
    cond = condition_lines(model, max(1, width - 2), Palette(glyphs=app.glyphs).tr)
    return sizes.figure_layout(width, height, cond, model.zoomed, model.exploring,
                               lambda room: grid.frame_of(model, room), lab=model.side_pane == "lab")


def check(app, width: int, height: int) -> None:
    region = {name: app.query_one(f"#{name}").region for name in ("grid", "bars", "explain", "lab-pane", "body")}
    if width < sizes.MIN_WIDTH or height < sizes.MIN_HEIGHT:
        assert app.query_one("#too-small").region.area > 0
        assert region["body"].area == 0
        return
    plan, model = expected(app, width, height), app.model
    body = region["body"]
    assert body.width == width, (width, height)
    left = body.x + (sizes.CONTROLS_WIDTH if model.exploring and not model.zoomed else 0)
    side = region["lab-pane" if model.side_pane == "lab" else "explain"]
    grid, bars = region["grid"], region["bars"]
    where = (width, height, model.mode, model.side_pane, model.zoomed)
    if model.zoomed:
        shown = side if model.side_pane == "lab" else grid
        assert (shown.x, shown.width, shown.height) == (left, plan.body_width, plan.body_height), where
        return
    height = plan.grid_height
    if per_step(model, plan):  # the step's own height, within the plan's (the tallest step's)
        height = step_height(model, plan, app.glyphs, app.query_one("#grid").tokens())[0]
        assert height <= plan.grid_height, where
    assert (grid.x, grid.width, grid.height) == (left, plan.grid_width, height), where
    if plan.wide:
        assert (bars.x, bars.y, bars.width) == (left, grid.bottom, plan.column), where
        assert bars.bottom == body.bottom, where
        assert (side.x, side.width) == (left + plan.column, plan.side_width), where
    elif plan.stacked:  # a narrow body: the weights under the grid
        assert (bars.x, bars.y, bars.width, bars.height) == (left, grid.bottom, plan.body_width,
                                                              sizes.BARS_STACKED), where
        assert (side.x, side.y, side.width) == (left, bars.bottom, plan.side_width), where
        assert side.bottom == body.bottom, where
    else:
        assert (bars.x, bars.y, bars.width) == (grid.right, grid.y, plan.body_width - plan.grid_width), where
        assert (side.x, side.y, side.width) == (left, grid.bottom, plan.side_width), where
        assert side.bottom == body.bottom, where


@pytest.mark.parametrize("nodes", [SIZES, CLASSES, NARROW])
def test_the_walk_crosses_every_pair(nodes):
    walk = every_pair(nodes)
    assert set(zip(walk, walk[1:])) == set(itertools.permutations(nodes, 2))
    assert len(walk) == len(nodes) * (len(nodes) - 1) + 1
    first, second = halves(walk, 0), halves(walk, 1)
    assert first[-1] == second[0] and first + second[1:] == walk  # the halves are the walk, cut once


MODES = {
    "figure": dict(step=5),
    "narrow": dict(explore=ExploreConfig(past=3, new=2)),
    "explore": dict(explore=ExploreConfig(past=3, new=2)),
    "lab": dict(explore=ExploreConfig(past=2, new=6, chunk=4), experiments=("leak-probe",), lens=True),
}


def halves(walk: list, half: int) -> list:
    """The first or second half of `walk`, sharing the size between them:
    the two halves cross every pair the whole walk does, in two apps that
    can run side by side."""
    middle = len(walk) // 2
    return walk[:middle + 1] if half == 0 else walk[middle:]


def both_ways(nodes: list) -> list:
    """Each breakpoint crossed in order up and back down, then the two far
    jumps (the smallest class to the largest and back)."""
    return nodes + nodes[-2::-1] + [nodes[-1], nodes[0]]


#: (mode, zoom, walk): the figure crosses every pair of classes (and the
#: audit's sizes), in two halves that can run side by side; the other modes
#: share its layout code and cross each breakpoint both ways.
WALKS = [("figure", False, halves(every_pair(CLASSES) + [(80, 24), (139, 40), (160, 48), (139, 40), (59, 30)], 0)),
         ("figure", False, halves(every_pair(CLASSES) + [(80, 24), (139, 40), (160, 48), (139, 40), (59, 30)], 1)),
         ("explore", False, both_ways(CLASSES)), ("lab", False, both_ways(CLASSES)),
         ("narrow", False, both_ways(NARROW)),
         ("figure", True, CLASSES + CLASSES[-2::-1]), ("lab", True, CLASSES + CLASSES[-2::-1])]


def test_the_short_walks_cross_each_breakpoint_both_ways():
    for nodes in (CLASSES, NARROW):
        steps = set(zip(both_ways(nodes), both_ways(nodes)[1:]))
        assert all((a, b) in steps and (b, a) in steps for a, b in zip(nodes, nodes[1:]))
        assert (nodes[0], nodes[-1]) in steps and (nodes[-1], nodes[0]) in steps


@pytest.mark.parametrize("mode,zoom,walk", WALKS,
                         ids=["figure-0", "figure-1", "explore", "lab", "narrow", "figure-zoom", "lab-zoom"])
async def test_every_resize_lays_out_at_once(mode, zoom, walk):
    app = make_app(**MODES[mode])
    first = walk[0]
    async with app.run_test(size=first) as pilot:
        await settle(pilot)
        if zoom:  # one pane takes the body
            await pilot.press("z")
            await settle(pilot)
        check(app, *first)
        for size in walk[1:]:  # no key between
            await pilot.resize_terminal(*size)
            await settle(pilot)
            check(app, *size)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_explore_mode_at_60x20_shows_cells_and_whole_legend_entries(lang):
    from maskattn_tui.i18n import t

    app = make_app(lang=lang, explore=ExploreConfig(past=3, new=2))
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        grid = app.query_one("#grid")
        check(app, 60, 20)
        assert grid.region.width >= 30
        shown = [grid.render_line(y).text for y in range(grid.size.height)]
        q3 = next(line for line in shown if "q3" in line)
        assert q3.count("✓") == 4 and "F" in q3.split("│")[1]  # k0-k3 visible, k4 the future
        lines = ["".join(s.text for s in grid.figure.full(y)) for y in range(grid.figure.height)]
        future = t("render.legend.future", lang)  # 未来（因果）: whole on one line, not cut mid-word
        assert any(future in line for line in lines), (future, lines)
