"""What a row move costs the line-drawn grid, by table size: 5x5, 32x64 and
4,096x4,096 (a synthetic source, computed per cell, as the mask doctor's
numpy source will be), in one run, interleaved, medians. A row move
redraws the lines of the row left and the row entered at the width on
screen (157 cells: the grid at 160 columns); a scroll redraws a screenful
(45 lines). The cost should not grow with the table.

    python benchmarks/grid_cost.py [--moves 300]

A benchmark, not a test: it asserts nothing."""

from __future__ import annotations

import argparse
import statistics
import time

from maskattn_tui.render.grid_lines import Column, TableBlock
from maskattn_tui.render.palette import default_palette
from maskattn_tui.render.table_source import SyntheticSource

SIZES = ((5, 5), (32, 64), (4096, 4096))
WIDTH, SCREEN = 157, 45


SOURCES = {size: SyntheticSource(*size) for size in SIZES}  # one per table, as a view keeps its own


def figure(rows: int, cols: int, row: int, cw: int) -> Column:
    block = TableBlock(SOURCES[(rows, cols)], default_palette(), "en", row, cell_width=cw)
    return Column([block], fixed=block.header)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300)
    args = parser.parse_args(argv)
    moves = {s: [] for s in SIZES}
    scrolls = {s: [] for s in SIZES}
    for i in range(args.moves):
        for rows, cols in SIZES:  # interleaved
            row = (i * 7) % rows
            start = time.perf_counter()
            fig = figure(rows, cols, row + 1 if row + 1 < rows else row, 1)
            for r in (row, min(rows - 1, row + 1)):
                for y in fig.row_lines(r):
                    fig.window(y, x=(cols // 3), width=WIDTH)
            moves[(rows, cols)].append(time.perf_counter() - start)
            start = time.perf_counter()
            for y in range(SCREEN):
                fig.window(y if y < fig.fixed else y + row, x=(cols // 3), width=WIDTH)
            scrolls[(rows, cols)].append(time.perf_counter() - start)
    print(f"{args.moves} row moves per size, interleaved; medians (µs)")
    print("| table | row move (2 lines) | screenful (45 lines) |")
    print("|---|---:|---:|")
    for size in SIZES:
        print(f"| {size[0]} x {size[1]} | {statistics.median(moves[size]) * 1e6:.0f} | "
              f"{statistics.median(scrolls[size]) * 1e6:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
