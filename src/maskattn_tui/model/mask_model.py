"""Mask mode's state: which block size, which block or cell is selected and
a drill-down into one block's cells (the language is the app model's).
One frozen value and its transitions; pure Python (no numpy, no Textual),
tested on its own.

The view is either the overview of the whole mask in blocks of `size`
(size 1: the cells themselves) or, after a drill-down, the cells of one
block (`window`). The selection is kept as a place in the mask, so that a
new block size or leaving a drill-down selects the block holding the
cell that was selected."""

from __future__ import annotations

from dataclasses import dataclass, replace

from maskattn_tui.maskmode.block_stats import BLOCK_SIZES

#: Files `o` and --mask open in mask mode (anything else: a scenario).
MASK_SUFFIXES = (".npy", ".npz", ".safetensors", ".pt", ".pth", ".txt", ".json", ".csv")


def is_mask_path(path: str) -> bool:
    """A mask file, or a capture folder (maskattn-tui capture: its calls' masks)."""
    import os
    import re

    base = re.sub(r"\[[^\[\]/]+\]$", "", path)  # FILE[KEY]: one array of a file of several
    return base.lower().endswith(MASK_SUFFIXES) or os.path.isdir(path)



def auto_block(rows: int, keys: int, fit_rows: int, fit_cols: int, least: int = 1) -> int:
    """The smallest block size whose overview fits `fit_rows` x `fit_cols`
    cells (1: the cells themselves fit); the largest offered if none does."""
    for size in sizes_for(rows, keys, least):
        if -(-rows // size) <= fit_rows and -(-keys // size) <= fit_cols:
            return size
    return sizes_for(rows, keys, least)[-1]


def sizes_for(rows: int, keys: int, least: int = 1) -> tuple[int, ...]:
    """The block sizes worth offering: from `least` (a table too long to
    count in small blocks) up to the first that makes the whole mask one
    block."""
    out = []
    for size in BLOCK_SIZES:
        if size < least and size != BLOCK_SIZES[-1]:
            continue
        out.append(size)
        if size >= max(rows, keys):
            break
    return tuple(out)


@dataclass(frozen=True)
class MaskState:
    rows: int
    keys: int
    auto: bool = True
    size: int = 1
    #: The selection in the current view (a block, or a cell).
    row: int = 0
    col: int = 0
    #: A drill-down: the cells r0:r1 x c0:c1 of one block (None: the overview).
    window: tuple[int, int, int, int] | None = None
    #: Cells the overview may take (set from the screen's room).
    fit: tuple[int, int] = (20, 20)
    #: The smallest block size offered (1: cells of the whole table too).
    least: int = 1

    # -- derived ------------------------------------------------------------
    @property
    def mode(self) -> str:
        """The command table's mode (the footer reads it)."""
        return "mask"

    @property
    def cells(self) -> bool:
        """The view shows cells (size 1, or a drill-down), not blocks."""
        return self.window is not None or self.size == 1

    @property
    def shape(self) -> tuple[int, int]:
        """Rows and columns of the current view."""
        if self.window is not None:
            r0, r1, c0, c1 = self.window
            return r1 - r0, c1 - c0
        return -(-self.rows // self.size), -(-self.keys // self.size)

    @property
    def place(self) -> tuple[int, int]:
        """The selected cell of the mask (a block's first cell)."""
        if self.window is not None:
            return self.window[0] + self.row, self.window[2] + self.col
        return self.row * self.size, self.col * self.size

    @property
    def span(self) -> tuple[int, int, int, int]:
        """The cells under the selection: r0, r1, c0, c1."""
        r, c = self.place
        step = 1 if self.cells else self.size
        return r, min(self.rows, r + step), c, min(self.keys, c + step)

    @property
    def sizes(self) -> tuple[int, ...]:
        return sizes_for(self.rows, self.keys, self.least)

    # -- transitions ----------------------------------------------------------
    def _at(self, size: int, place: tuple[int, int], **changes) -> MaskState:
        """The overview in blocks of `size`, selecting the block holding `place`."""
        return replace(self, size=size, window=None, row=place[0] // size, col=place[1] // size, **changes)

    def move(self, d_row: int, d_col: int) -> MaskState:
        rows, cols = self.shape
        return replace(self, row=min(max(0, self.row + d_row), rows - 1),
                       col=min(max(0, self.col + d_col), cols - 1))

    def to_edge(self, last: bool) -> MaskState:
        """The first or the last row of the view (home / end)."""
        return replace(self, row=self.shape[0] - 1 if last else 0)

    def to_key_edge(self, last: bool) -> MaskState:
        """The first or the last key (column) of the view."""
        return replace(self, col=self.shape[1] - 1 if last else 0)

    def page(self, d_rows: int, d_cols: int) -> MaskState:
        """A page of rows (the rows the grid shows) or of keys, up or down."""
        return self.move(d_rows * max(1, self.fit[0] - 1), d_cols * max(1, self.fit[1] - 1))

    def goto(self, row: int, key: int) -> MaskState:
        """Select the cell (row, key) of the mask, clamped to it: its cell in
        a drill-down that holds it, else the block holding it."""
        row, key = min(max(0, row), self.rows - 1), min(max(0, key), self.keys - 1)
        if self.window is not None:
            r0, r1, c0, c1 = self.window
            if r0 <= row < r1 and c0 <= key < c1:
                return replace(self, row=row - r0, col=key - c0)
        return self._at(self.size, (row, key))

    def resize(self, step: int) -> MaskState:
        """The next bigger (+1) or smaller (-1) block size; leaves auto and
        any drill-down."""
        sizes = self.sizes
        i = sizes.index(self.size) if self.size in sizes else 0
        size = sizes[min(max(0, i + step), len(sizes) - 1)]
        return self._at(size, self.place, auto=False)

    def toggle_auto(self) -> MaskState:
        if self.auto:
            return replace(self, auto=False)
        return self._at(auto_block(self.rows, self.keys, *self.fit, self.least), self.place, auto=True)

    def with_fit(self, fit_rows: int, fit_cols: int) -> MaskState:
        """The room changed: auto picks the size again (a drill-down stays)."""
        state = replace(self, fit=(max(1, fit_rows), max(1, fit_cols)))
        if not self.auto or self.window is not None:
            return state
        size = auto_block(self.rows, self.keys, *state.fit, self.least)
        return state if size == self.size else state._at(size, self.place)

    def drill(self) -> MaskState:
        """Into the selected block's cells (nothing to do on cells)."""
        if self.cells:
            return self
        return replace(self, window=self.span, row=0, col=0)

    def back(self) -> MaskState:
        """Out of a drill-down, to the block it came from."""
        if self.window is None:
            return self
        return self._at(self.size, self.place)

def new_state(rows: int, keys: int, fit_rows: int, fit_cols: int, size: int | None = None,
              least: int = 1) -> MaskState:
    """The state at start: auto unless a block size is given."""
    state = MaskState(rows, keys, auto=size is None, fit=(max(1, fit_rows), max(1, fit_cols)), least=least)
    sizes = sizes_for(rows, keys, least)
    chosen = (auto_block(rows, keys, *state.fit, least) if size is None
              else max((s for s in sizes if s <= size), default=sizes[0]))
    return replace(state, size=chosen)
