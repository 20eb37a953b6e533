"""Mask mode's documents: what `--mask` names (a saved file, a capture
folder, a mask_mod, a long rule), read as one contract (document.py) by the
mask screen (tui/mask_screen.py), `print --mask` (cli/mask_print.py) and
the renderers (render/mask_figure.py). The doctor here is only analysis:
the diagnosis a document shows is the doctor's.

What stays outside, and why: the screen, its views and its go-to dialog
(tui/) and the drawing (render/mask_*.py) use Textual and Rich, which
nothing below render imports; print --mask and what --mask names
(cli/mask_print.py, cli/mask_doc.py) read argparse's options; the view
state (model/mask_model.py: block size, selection, drill-down) is the app
model's, one layer up (text.py reads it through document.ViewState)."""


def __getattr__(name: str):
    """`open_mask(path)`, `open_array(mask)`: a document (a notebook shows
    its figure), imported from saved_doc.py only when asked for."""
    if name in ("open_mask", "open_array"):
        from maskattn_tui.maskmode import saved_doc

        return getattr(saved_doc, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
