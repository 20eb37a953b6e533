"""Table sources over a diagnosed mask, for the line-drawn grid: the same
methods as render.table_source.TableSource (rows, cols, cell, differs,
labels...). Pure: numpy, no Textual, no Rich.

    CellSource(tables, "user", window)   cells of a window of the mask
    BlockSource(tables, "rule", 128)      blocks: full / partial / empty

The grid asks only for the cells it shows. A CellSource reads the mask in
tiles of TILE_ROWS x TILE_COLS (kept in a small cache), so a row move reads
at most a couple of tiles, whatever the mask's size; labels are sized by
arithmetic. `differs` marks cells (or blocks holding cells) where the
user's table and the rule's disagree."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from maskattn_tui.maskmode.tables import BLOCK_REASONS, REASONS, Tables

TILE_ROWS, TILE_COLS = 32, 256
#: Tiles kept (a screen of 160 x 48 needs a few).
TILE_CACHE = 64


@dataclass(frozen=True)
class Window:
    """Rows r0:r1 and keys c0:c1 of the mask (a drill-down, or all of it)."""

    r0: int
    r1: int
    c0: int
    c1: int

    @staticmethod
    def whole(tables: Tables) -> "Window":
        return Window(0, tables.rows, 0, tables.keys)


class _Labels:
    """Labels by absolute position: q<offset + row>, k<key>."""

    tables: Tables
    row_start = col_start = 0
    row_step = col_step = 1
    rows = cols = 0

    def row_position(self, row: int) -> int:
        return self.tables.offset + (self.row_start + row * self.row_step)

    def row_label(self, row: int) -> str:
        return f"q{self.row_position(row)}"

    def col_position(self, col: int) -> int:
        return self.col_start + col * self.col_step

    def col_label(self, col: int) -> str:
        return f"k{self.col_position(col)}"

    def max_row_label(self) -> int:
        return 1 + len(str(max(0, self.row_position(max(0, self.rows - 1)))))

    def max_col_label(self) -> int:
        return 1 + len(str(self.col_position(max(0, self.cols - 1))))

    def row_is_focus(self, row: int) -> bool:
        return False


class CellSource(_Labels):
    """One table ("user" or "rule") of a window of the mask, cell by cell."""

    def __init__(self, tables: Tables, which: str, window: Window | None = None) -> None:
        self.tables, self.which = tables, which
        self.window = window or Window.whole(tables)
        w = self.window
        self.rows, self.cols = w.r1 - w.r0, w.c1 - w.c0
        self.row_start, self.col_start = w.r0, w.c0
        self._tiles: OrderedDict[tuple[int, int], tuple[list, list]] = OrderedDict()
        #: Tiles read from the mask so far (tests check a move reads few).
        self.tiles_read = 0
        a, b = tables.pad_keys
        self.any_pad = a < b and w.c0 < b and a < w.c1

    def _tile(self, row: int, col: int) -> tuple[list, list]:
        key = (row // TILE_ROWS, col // TILE_COLS)
        tile = self._tiles.get(key)
        if tile is not None:
            self._tiles.move_to_end(key)
            return tile
        w, t = self.window, self.tables
        r0, c0 = w.r0 + key[0] * TILE_ROWS, w.c0 + key[1] * TILE_COLS
        r1, c1 = min(w.r1, r0 + TILE_ROWS), min(w.c1, c0 + TILE_COLS)
        tile = (t.reasons(self.which, r0, r1, c0, c1).tolist(), t.differs(r0, r1, c0, c1).tolist())
        self.tiles_read += 1
        self._tiles[key] = tile
        if len(self._tiles) > TILE_CACHE:
            self._tiles.popitem(last=False)
        return tile

    def cell(self, row: int, col: int) -> str:
        return REASONS[self._tile(row, col)[0][row % TILE_ROWS][col % TILE_COLS]]

    def differs(self, row: int, col: int) -> bool:
        return self._tile(row, col)[1][row % TILE_ROWS][col % TILE_COLS]

    def col_group(self, col: int) -> str | None:
        offset = self.tables.offset
        if not offset or not self.tables.causal:
            return None
        return "cached" if self.col_position(col) < offset else "new"

    def col_is_pad(self, col: int) -> bool:
        a, b = self.tables.pad_keys
        return a <= self.col_position(col) < b

    def row_is_pad(self, row: int) -> bool:
        return self.tables.row_is_pad(self.row_start + row)

    def scan_summary(self) -> dict:
        """render.grid_lines.table_scan's answer by arithmetic: it would call
        col_group and row_is_pad once per column and row (131,072 of each
        for a long rule, about 0.3 s of the first paint)."""
        t, groups = self.tables, []
        if t.offset and t.causal:  # col_group: keys before the offset are the cache
            split = min(max(t.offset - self.col_start, 0), self.cols)
            groups = [(a, b, g) for a, b, g in ((0, split, "cached"), (split, self.cols, "new")) if a < b]
        lo, hi = max(0, t.offset + self.row_start), min(t.keys, t.offset + self.row_start + self.rows)
        return {"groups": groups, "row_pad": bool(lo < hi and t.pad[lo:hi].any())}


class BlockSource(_Labels):
    """The block overview of one table: each cell a block of `size` x
    `size` cells, "block.full" / "block.partial" / "block.empty", marked
    where the block holds a cell the rule and the mask disagree on."""

    any_pad = False

    def __init__(self, tables: Tables, which: str, size: int) -> None:
        self.tables, self.which, self.size = tables, which, size
        self.counts = tables.blocks(size)
        self.rows, self.cols = self.counts.shape
        self.row_step = self.col_step = size
        self._cells = self.counts.category(which).tolist()
        self._differ = (self.counts.differ > 0).tolist()

    def cell(self, row: int, col: int) -> str:
        return BLOCK_REASONS[self._cells[row][col]]

    def differs(self, row: int, col: int) -> bool:
        return self._differ[row][col]

    def col_group(self, col: int) -> str | None:
        return None

    def col_is_pad(self, col: int) -> bool:
        return False

    def row_is_pad(self, row: int) -> bool:
        return False

