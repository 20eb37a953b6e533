"""FlexAttention's view of a mask, as `print(block_mask)` gives it, drawn
for mask mode's explanation: the counts of maskmode.block_stats at 128
(the document's tables count them: maskmode.tables.Tables.block_stats)."""

from __future__ import annotations

from maskattn_tui.maskmode.block_stats import FLEX_BLOCK
from maskattn_tui.maskmode.tables import Tables
from maskattn_tui.render.grid_lines import Line, wrap_text
from maskattn_tui.render.numbers import count
from maskattn_tui.render.palette import Palette


def stats_lines(tables: Tables, lang: str, palette: Palette, width: int) -> list[Line]:
    stats = tables.block_stats(FLEX_BLOCK)
    lines = wrap_text(palette.t("tui.m.stats.title", lang, block=stats.block), width, palette.style("title"))
    key = "tui.m.stats.blocks_one" if stats.blocks == 1 else "tui.m.stats.blocks"
    text = palette.t(key, lang, full=count(stats.full), partial=count(stats.partial),
                     empty=count(stats.empty), blocks=count(stats.blocks), sparsity=f"{stats.sparsity:.2f}")
    lines += wrap_text(palette.tr(text), width)
    text = palette.t("tui.m.stats.cells", lang, visible=count(stats.visible), cells=count(stats.cells),
                     density=f"{stats.density:.2f}")
    lines += wrap_text(palette.tr(text), width)
    return [*lines, []]
