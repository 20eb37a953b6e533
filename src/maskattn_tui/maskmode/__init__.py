"""Mask mode's documents: what `--mask` names (a saved file, a capture
folder, a mask_mod, a long rule), read as one contract (document.py) by the
mask screen (tui/mask_screen.py), `print --mask` (cli/mask_print.py) and
the renderers (render/mask_figure.py). The doctor here is only analysis:
the diagnosis a document shows is the doctor's."""
