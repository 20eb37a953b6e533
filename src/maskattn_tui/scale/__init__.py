"""Masks too big to hold: FlexAttention's block view of a rule or of a
user's mask_mod, computed without ever building the Q x K table.

    intervals      a rule's visible keys per row as runs [lo, hi] (trees: the
                   runs of the tree rule's own cells)
    blocks         runs -> full / partial / empty per (Q-block, KV-block), the
                   counts create_block_mask gives, print(block_mask)'s picture
    mask_mod       FILE.py:NAME imported on the user's request, evaluated on tiles
    tiles          one pass over a mask_mod's tiles: block sums and row statistics
    reading        the doctor's readings from those; --expect cell by cell
    reuse          a BlockMask used at other lengths or another block size
    report, doctor_run   `doctor FILE.py:NAME`
    explore_route, explore_big, explore_print   `print` / `json` beyond 32 + 32

Mask mode on a mask_mod (`--mask FILE.py:NAME`) and on a rule beyond 32 + 32
is maskmode's (maskmode/mask_mod_doc.py, rule_doc.py, rule_tables.py).

numpy only, except mask_mod / tiles, which import torch when the user's
function needs it."""
