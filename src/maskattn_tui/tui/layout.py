"""The screen's sizes, by arithmetic: how much room the figure may take,
and how big its pane is for the whole walkthrough (the largest step's
figure). Where the explanation is under the figure, each step's pane is
its own height within that (tui.step_fit); elsewhere nothing moves when
stepping. Pure: no Textual."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from maskattn_tui.render.figure_lines import Room

#: Below this the figure is replaced by a notice (80x24 is comfortably above).
MIN_WIDTH, MIN_HEIGHT = 60, 20
#: From this width on (of the screen), the explanation moves beside the figure.
WIDE_WIDTH = 140
#: The explore panel's width (its CSS: tui/widgets/explore_panel.py).
CONTROLS_WIDTH = 26
#: Lines the explanation keeps under the figure at least (with its border).
EXPLAIN_MIN = 5
#: Lines the explanation should get under the figure (with its border):
#: when the largest figure leaves it fewer, the figure's room shrinks to
#: the tallest step's tightest layout (render.figure_lines.build_figure).
EXPLAIN_WANT = 8
#: Lines the weights keep under the grid at least, in the wide layout.
BARS_MIN = 10
#: Columns the weights keep beside the grid at least (key, glyph, a short bar, p).
BARS_MIN_WIDTH = 24
#: Narrower than this beside the weights' minimum (explore mode at 60
#: columns), the weights go under the grid instead of beside it, so that
#: the grid keeps room for its cells.
STACK_BELOW = 30
#: The weights' lines under the grid in that case (with the pane's title).
BARS_STACKED = 5
#: A pane's chrome: its title border (1 line); padding and the vertical
#: scrollbar's column (3 cells).
PANE_LINES, PANE_CELLS = 1, 3
#: The grid's share of the body's width beside the weights.
GRID_SHARE = 0.7
#: The figure column's share of the body in the wide layout.
WIDE_SHARE = 0.6
#: With an experiment or the lens on, the wide layout's figure column is
#: only as wide as the grid needs (at least this, for the weights' lines):
#: the rest of the body is the reading pane's.
LAB_FIGURE_MIN = 50


@dataclass(frozen=True)
class Layout:
    wide: bool
    room: Room  # where the grid's figure is drawn
    grid_width: int  # the grid pane's outer size
    grid_height: int
    body_width: int
    body_height: int
    #: The figure column's width in the wide layout (grid and weights), else
    #: the grid pane's; the side (explanation, reading pane) has the rest.
    column: int = 0
    #: The weights under the grid (a narrow body), not beside it.
    stacked: bool = False

    @property
    def side_width(self) -> int:
        """The explanation's (or reading pane's) outer width."""
        return self.body_width - self.column if self.wide else self.body_width


def figure_layout(width: int, height: int, condition_lines: int, zoomed: bool, explore: bool,
                  frame: Callable[[Room], tuple[int, int]], lab: bool = False) -> Layout:
    """The grid pane's size on a `width` x `height` screen; `frame(room)` is
    the largest figure of the walkthrough drawn in `room`; `lab`: an
    experiment or the lens is on (their pane takes the room the grid does
    not use)."""
    wide = width >= WIDE_WIDTH and not zoomed
    body_w = max(1, width - (CONTROLS_WIDTH if explore and not zoomed else 0))
    body_h = max(1, height - 1 - condition_lines - 1)  # player bar, condition, footer
    stacked = not wide and not zoomed and body_w - BARS_MIN_WIDTH < STACK_BELOW
    if zoomed:
        room = Room(body_w - PANE_CELLS, body_h - PANE_LINES)
    elif wide:
        column = int(body_w * WIDE_SHARE)
        room = Room(column - PANE_CELLS, body_h - PANE_LINES - BARS_MIN)
    elif stacked:
        room = Room(body_w - PANE_CELLS, body_h - PANE_LINES - EXPLAIN_MIN - BARS_STACKED)
    else:
        share = min(int(body_w * GRID_SHARE), body_w - BARS_MIN_WIDTH)  # the weights keep their numbers
        room = Room(share - PANE_CELLS, body_h - PANE_LINES - EXPLAIN_MIN)
    room = Room(max(8, room.width), max(3, room.height))
    fw, fh = frame(room)
    if not (zoomed or wide or stacked):
        room, fw, fh = _tightest(room, fw, fh, body_h, frame)
    scrollbar = 1 if fw > room.width else 0  # the horizontal scrollbar's line
    grid_h = min(fh + scrollbar, room.height) + PANE_LINES
    if zoomed:
        grid_w, grid_h = body_w, body_h
    elif wide:
        grid_w = int(body_w * WIDE_SHARE)
        if lab:
            grid_w = min(grid_w, max(min(fw, room.width) + PANE_CELLS, LAB_FIGURE_MIN))
    elif stacked:
        grid_w = body_w
    else:
        grid_w = min(fw, room.width) + PANE_CELLS
    return Layout(wide, room, grid_w, grid_h, body_w, body_h, grid_w if not zoomed else body_w, stacked)


def _tightest(room: Room, fw: int, fh: int, body_h: int,
              frame: Callable[[Room], tuple[int, int]]) -> tuple[Room, int, int]:
    """A short screen: when the largest figure leaves
    the explanation under it fewer than EXPLAIN_WANT lines, the room is as
    low as every step's figure still fits whole in (each step then draws its
    fullest layout that fits: the tallest one its tightest), so the pane is
    that much lower at every step and nothing moves when stepping."""
    if fw > room.width or fh > room.height or body_h - PANE_LINES - fh >= EXPLAIN_WANT:
        return room, fw, fh
    start = height = fh
    while height > 3:
        w, h = frame(Room(room.width, height - 1))
        if h > height - 1 or w > room.width:
            break
        # each step's layout at `height - 1` is its first that fits `h` too
        height, fw, fh = h, w, h
    return (room, fw, fh) if height == start else (Room(room.width, height), fw, fh)


def set_size(widget, **sizes: int | None) -> None:
    """Set a widget's width / height in cells (None: back to its CSS),
    touching the styles only when they change (each change is a layout)."""
    for name, value in sizes.items():
        rule = widget.styles.inline.get_rule(name)
        if value is None:
            if rule is not None:
                setattr(widget.styles, name, None)
        elif rule is None or rule.unit.name != "CELLS" or rule.value != value:
            setattr(widget.styles, name, value)
