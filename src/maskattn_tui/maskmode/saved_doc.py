"""Opening a mask for mask mode: read it as the doctor does (the same
one-line errors), diagnose it, and keep what the screen reads.

    doc = open_mask("mask.npy", batch=None, head=None, scores="scores.npy")
    doc.tables, doc.info, doc.scores, doc.weights(row)
    other_slice(doc, 0, 1)     # the next batch slice (b in mask mode), or None

numpy is imported here, never by the TUI's modules that do not show a mask."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from maskattn_tui.doctor.representation import bands
from maskattn_tui.errors import MaskattnError
from maskattn_tui.maskmode.document import MaskDocument
from maskattn_tui.maskmode.row_weights import RowWeights, check_scores, row_weights
from maskattn_tui.maskmode.tables import MaskTables

if TYPE_CHECKING:  # an annotation: the readers load on first use (open_mask), not when a long rule opens
    from maskattn_tui.doctor.read import MaskInfo


class SavedDoc(MaskDocument):
    """A saved table and its diagnosis (a file, a mask_mod written to a
    table, a capture folder's slice), as the contract (document.py) says.
    `scores`: the scores the bars use (None: generated), `scores_path`:
    their file, read again for another slice; `real`: they are a captured
    call's q·kᵀ·scale + mask (capture --weights); `capture`: the call
    picker of a capture folder's slice."""

    def __init__(self, info: MaskInfo, tables: MaskTables, scores: np.ndarray | None = None,
                 scores_path: str | None = None, real: bool = False, capture=None) -> None:
        self.info, self.tables = info, tables
        self.scores, self.scores_path, self.real = scores, scores_path, real
        self.capture = capture

    def row_weights(self, row: int) -> RowWeights:
        return row_weights(self.tables, row, self.scores, real=self.real)

    def to_html(self, lang: str = "en") -> str:
        """The mask figure as a notebook shows it: mask mode's page as
        `print --mask` draws it (render.notebook), in `lang`."""
        from maskattn_tui.render.notebook import figure_html

        return figure_html(self, lang)

    def _repr_html_(self) -> str:  # Jupyter: in the environment's language
        from maskattn_tui.i18n import lang_from_env

        return self.to_html(lang_from_env())

    def other_slice(self, dim: int, delta: int) -> SavedDoc | None:
        return other_slice(self, dim, delta)


def open_mask(path: str, batch: int | None = None, head: int | None = None, scores: str | None = None,
              key: str | None = None, loaded: tuple | None = None) -> SavedDoc:
    """Read and diagnose `path`; `scores`: a file of scores of the mask's
    shape (the same --batch / --head slice); `loaded`: (mask, MaskInfo)
    already read and checked by its reader (a capture folder's table).
    Raises MaskattnError."""
    # The diagnosis on first use: the mask screen imports this module for a
    # long rule too (maskmode.rule_doc), which diagnoses nothing.
    from maskattn_tui.doctor.diagnosis import diagnose
    from maskattn_tui.doctor.read import load_mask

    mask, info = loaded or load_mask(path, batch, head, key)  # key: the array of a .npz / .safetensors / dict .pt
    diag = diagnose(mask, source=info)
    given = None
    if scores is not None:
        array, score_info = load_mask(scores, batch if batch is not None else None, head)
        given = check_scores(array, diag.shape, score_info.path)
    tables = MaskTables(mask, diag)
    if given is not None:
        check_finite(tables, given, scores)
    tables.base  # the one pass of block counts, now rather than at the first drawing
    return SavedDoc(info, tables, given, scores)


def open_array(mask, name: str = "mask") -> SavedDoc:
    """A 2-D mask already in memory (a numpy array, a CPU tensor) as mask
    mode would open it from a file: the mask figure of a notebook."""
    from maskattn_tui.doctor.diagnosis import diagnose
    from maskattn_tui.doctor.read import MaskInfo

    array = np.asarray(mask)
    diag = diagnose(array, source=None)  # refuses what is not a 2-D mask (MaskattnError)
    info = MaskInfo(name, "array", tuple(array.shape), str(array.dtype), None, None, None)
    return SavedDoc(info, MaskTables(array, diag))


def split_key(path: str) -> tuple[str, str | None]:
    """`o`'s way to name one array of a file of several: FILE[KEY] (as the
    report heads it), when FILE exists and FILE[KEY] itself does not."""
    import os
    import re

    found = re.fullmatch(r"(.+)\[([^\[\]/]+)\]", path)
    if found and not os.path.lexists(path) and os.path.lexists(found[1]):
        return found[1], found[2]
    return path, None


def check_finite(tables: MaskTables, scores: np.ndarray, name: str) -> None:
    """A score the softmax reads (a visible cell) must be finite: NaN or
    +-inf there would make the row's weights NaN at the first drawing.
    Hidden cells may hold anything (a mask added to the scores: -inf)."""
    keys = tables.keys
    for r0, r1 in bands(tables.rows, keys):
        band = np.asarray(scores[r0:r1] if scores.ndim == 2 else scores[None, :])
        bad = tables.user(r0, r1, 0, keys) & ~np.isfinite(band)
        if bad.any():
            row, key = (int(i) for i in np.argwhere(bad)[0])
            value = band[row if band.shape[0] > 1 else 0, key]
            raise MaskattnError("mask_scores_nonfinite", file=name, row=r0 + row, col=key, value=str(value))


def other_slice(doc: SavedDoc, dim: int, delta: int) -> SavedDoc | None:
    """The same file at the next (delta 1) or previous batch (dim 0) or head
    (dim 1) slice, wrapping around; None when the mask has no such dimension
    or only one slice along it."""
    info = doc.info
    lead = info.shape[:-2]
    if dim >= len(lead) or lead[dim] < 2:
        return None
    if len(lead) == 1:  # a 3-D mask: one index, told as --batch
        return open_mask(info.path, (info.batch + delta) % lead[0], None, doc.scores_path, info.key)
    batch, head = info.batch, info.head
    if dim == 0:
        batch = (batch + delta) % lead[0]
    else:
        head = (head + delta) % lead[1]
    return open_mask(info.path, batch, head, doc.scores_path, info.key)
