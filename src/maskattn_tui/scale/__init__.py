"""Masks too big to hold: FlexAttention's block view of a rule or of a
user's mask_mod, computed without ever building the Q x K table.

    intervals   a rule's visible keys per row as runs [lo, hi] (trees: the
                ancestor runs, from the tree's own cells)
    blocks      runs -> full / partial / empty per (Q-block, KV-block), the
                counts create_block_mask gives, and print(block_mask)'s picture
    mask_mod    FILE.py:NAME imported on the user's request, evaluated on tiles
    tiles       one pass over a mask_mod's tiles: block sums and row statistics
    reading     the doctor's words (family, offset, window, ...) from those
    expect      a mask_mod against a rule, cell-exactly, only where blocks differ
    reuse       a BlockMask used at other lengths or another block size

numpy only, except mask_mod/tiles, which import torch when the user's
function needs it."""
