"""Mask mode's document contract: what the mask screen (tui/mask_screen.py,
tui/mask_goto.py), `print --mask` (cli/mask_print.py) and the renderers
(render/mask_figure.py, mask_lines.py, mask_stats.py) read of whatever
`--mask` named. Four kinds implement it: a saved file and a mask_mod
(saved_doc.SavedDoc, the mask_mod written to a table first), a capture
folder's slice (a SavedDoc with its call picker) and a rule of any length
(rule_doc.RuleDoc).

    doc.info          path, format, shape, batch, head (DocInfo)
    doc.tables        tables.Tables: the user's table and the rule's
    doc.weights(row)  row_weights.RowWeights, kept for the last rows
    doc.other_slice(dim, delta)  another batch / head slice, or None

Optional parts are declared here, with the value a document without them
has, so a reader tests them, never probes for them:

    doc.capture       a call picker (capture_doc.CallPicker) or None
    doc.rule_text     a rule's own titles and text (RuleText) or None; None:
                      the doctor's reading (tables is tables.MaskTables)
    doc.grid_title    the grid pane's title key
    doc.tables.least  the least block size the overview offers (1: cells)"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only (from the same folder; nothing imported at run time)
    from maskattn_tui.maskmode.capture_doc import CallPicker
    from maskattn_tui.maskmode.row_weights import RowWeights
    from maskattn_tui.maskmode.tables import Tables
    from maskattn_tui.maskmode.text import Section

#: Rows whose weights a document keeps (a row move back and forth computes none).
WEIGHTS_KEPT = 8


class ViewState(Protocol):
    """What the documents' text reads of mask mode's view state
    (model.mask_model.MaskState, a layer above: declared, not imported)."""

    place: tuple[int, int]
    row: int
    col: int
    size: int
    auto: bool
    window: tuple[int, int, int, int] | None

    @property
    def cells(self) -> bool: ...

    @property
    def shape(self) -> tuple[int, int]: ...

    @property
    def span(self) -> tuple[int, int, int, int]: ...


class DocInfo(Protocol):
    """The title's name and the slice keys' facts (doctor.read.MaskInfo is one)."""

    path: str
    format: str
    shape: tuple[int, ...]
    batch: int | None
    head: int | None


class RuleText(Protocol):
    """A rule's own words, for a document the user built (no doctor reading)."""

    #: the rule's explore options (render.mask_figure's short rule name)
    options: object

    def titles(self, lang: str) -> tuple[str, str]: ...

    def sections(self, state: ViewState, lang: str, glyph: Callable[[str], str]) -> list[Section]: ...


class MaskDocument(ABC):
    """The contract (module note). A subclass sets `info` and `tables` and
    computes a row's weights; the last WEIGHTS_KEPT rows are kept here, once."""

    info: DocInfo
    tables: Tables
    capture: CallPicker | None = None
    rule_text: RuleText | None = None
    grid_title: str = "doctor_tui.panel.grid"

    @property
    def path(self) -> str:
        return self.info.path

    @cached_property
    def _kept(self) -> dict[int, RowWeights]:
        return {}

    def weights(self, row: int) -> RowWeights:
        kept = self._kept
        got = kept.get(row)
        if got is None:
            got = self.row_weights(row)
            if len(kept) >= WEIGHTS_KEPT:
                kept.pop(next(iter(kept)))  # the oldest (first in)
            kept[row] = got
        return got

    @abstractmethod
    def row_weights(self, row: int) -> RowWeights:
        """The row's softmax weights, computed (weights() keeps them)."""

    def other_slice(self, dim: int, delta: int) -> MaskDocument | None:
        """The next (delta 1) / previous batch (dim 0) or head (dim 1) slice;
        None when the document has no other."""
        return None
