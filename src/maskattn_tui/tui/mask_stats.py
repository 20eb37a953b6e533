"""FlexAttention's view of a mask, as `print(block_mask)` gives it: blocks
of 128 x 128 (create_block_mask's default) counted full, partial and empty,
the sparsity (the share of blocks flex_attention skips) and the share of
visible cells. Counted from the doctor's block counts (one pass over the
mask, kept on the tables), for the user's table as read."""

from __future__ import annotations

from dataclasses import dataclass

from maskattn_tui.doctor.blocks import EMPTY, FULL, PARTIAL
from maskattn_tui.render.grid_lines import Line, wrap_text
from maskattn_tui.render.numbers import count
from maskattn_tui.render.palette import Palette

#: create_block_mask's BLOCK_SIZE default (torch.nn.attention.flex_attention).
FLEX_BLOCK = 128


@dataclass(frozen=True)
class BlockStats:
    block: int
    full: int
    partial: int
    empty: int
    visible: int
    cells: int

    @property
    def blocks(self) -> int:
        return self.full + self.partial + self.empty

    @property
    def sparsity(self) -> float:
        """Per cent of blocks not computed (BlockMask.sparsity())."""
        return 100.0 * self.empty / self.blocks if self.blocks else 0.0

    @property
    def density(self) -> float:
        """Per cent of cells visible."""
        return 100.0 * self.visible / self.cells if self.cells else 0.0


def block_stats(tables, block: int = FLEX_BLOCK) -> BlockStats:
    if hasattr(tables, "block_stats"):  # a rule of any length (scale.rule_tables): counted by bands
        return tables.block_stats(block)
    counts = tables.blocks(block)
    kinds = counts.category("user")
    return BlockStats(block, int((kinds == FULL).sum()), int((kinds == PARTIAL).sum()),
                      int((kinds == EMPTY).sum()), int(counts.user.sum()), tables.rows * tables.keys)


def stats_lines(tables, lang: str, palette: Palette, width: int) -> list[Line]:
    stats = block_stats(tables)
    lines = wrap_text(palette.t("tui.m.stats.title", lang, block=stats.block), width, palette.style("title"))
    key = "tui.m.stats.blocks_one" if stats.blocks == 1 else "tui.m.stats.blocks"
    text = palette.t(key, lang, full=count(stats.full), partial=count(stats.partial),
                     empty=count(stats.empty), blocks=count(stats.blocks), sparsity=f"{stats.sparsity:.2f}")
    lines += wrap_text(palette.tr(text), width)
    text = palette.t("tui.m.stats.cells", lang, visible=count(stats.visible), cells=count(stats.cells),
                     density=f"{stats.density:.2f}")
    lines += wrap_text(palette.tr(text), width)
    return [*lines, []]
