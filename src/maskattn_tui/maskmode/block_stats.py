"""Block statistics of a mask as FlexAttention counts them: blocks of
FLEX_BLOCK x FLEX_BLOCK (create_block_mask's default BLOCK_SIZE) counted full,
partial and empty, the sparsity (the share of blocks flex_attention skips)
and the share of visible cells; and the block sizes mask mode offers. No
numpy at import: the app model and --help read BLOCK_SIZES. A document's
tables count them (tables.Tables.block_stats; a long rule by bands)."""

from __future__ import annotations

from dataclasses import dataclass

#: Block sizes offered (1 = cells; then powers of two, multiples of the
#: doctor's counting tile, 8). FlexAttention's BlockMask uses 128 by default.
BLOCK_SIZES = (1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
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

