"""What the line-drawn grid reads: a "table source" of rows x columns, each
cell a reason code ("allowed", "future", "pad", "future+pad", or any reason
render.palette has a glyph for), with row and column labels.

One implementation reads a StepView; the mask doctor's numpy-backed source
(thousands of positions) plugs in by implementing the same few methods. The
grid asks only for the cells it shows, so a source never has to build a
whole table of Python objects."""

from __future__ import annotations

from typing import Protocol

from maskattn_tui.engine.rules import Pattern
from maskattn_tui.engine.visibility import VisibilityTable
from maskattn_tui.lesson.stepview import StepView


class TableSource(Protocol):
    rows: int
    cols: int

    def cell(self, row: int, col: int) -> str:
        """The cell's reason code."""

    def differs(self, row: int, col: int) -> bool:
        """Marked "!": differs from the correct table."""

    def row_label(self, row: int) -> str: ...

    def col_label(self, col: int) -> str:
        """Short: "k12"."""

    def col_position(self, col: int) -> int: ...

    def col_group(self, col: int) -> str | None:
        """A meaning for the header's group line ("cached" / "new"), or None."""

    def col_is_pad(self, col: int) -> bool: ...

    def row_is_pad(self, row: int) -> bool:
        """The query's own position is PAD (flagged, not blanked)."""

    def row_is_focus(self, row: int) -> bool: ...

    def max_row_label(self) -> int:
        """The widest row label, in cells (arithmetic, not a scan, for big sources)."""

    def max_col_label(self) -> int: ...


class StepTableSource:
    """One visibility table of a StepView (its own, or step 5's row-number one)."""

    def __init__(self, view: StepView, table: VisibilityTable | None = None,
                 differs: tuple[tuple[bool, ...], ...] | None = None,
                 row_labels: tuple[str, ...] | None = None) -> None:
        self.view = view
        self.table = table if table is not None else view.table
        self._differs = differs
        self._row_labels = row_labels
        self.rows = len(self.table.query_positions)
        self.cols = len(self.table.key_positions)
        self._focus = frozenset(view.spec.focus_rows)
        # A query whose own position is one of the PAD keys' (explore mode).
        pad_positions = {p for p, is_pad in zip(self.table.key_positions, self.table.key_is_pad) if is_pad}
        self._row_pad = tuple(q in pad_positions for q in self.table.query_positions)
        self._past = view.spec.past

    def cell(self, row: int, col: int) -> str:
        return self.table.cells[row][col].value

    def differs(self, row: int, col: int) -> bool:
        return self._differs is not None and self._differs[row][col]

    def row_label(self, row: int) -> str:
        if self._row_labels is not None:
            return self._row_labels[row]
        return f"q{self.table.query_positions[row]}"

    def row_position(self, row: int) -> int | None:
        """The query's absolute position (None: a row labelled otherwise)."""
        return None if self._row_labels is not None else self.table.query_positions[row]

    def col_label(self, col: int) -> str:
        return f"k{self.table.key_positions[col]}"

    def col_position(self, col: int) -> int:
        return self.table.key_positions[col]

    def col_group(self, col: int) -> str | None:
        if not self._past:
            return None
        return "cached" if self.table.key_positions[col] < self._past else "new"

    def col_is_pad(self, col: int) -> bool:
        return self.table.key_is_pad[col]

    def row_is_pad(self, row: int) -> bool:
        return self._row_pad[row]

    def row_is_focus(self, row: int) -> bool:
        return row in self._focus

    def max_row_label(self) -> int:
        from rich.cells import cell_len

        return max((cell_len(self.row_label(r)) for r in range(self.rows)), default=0)

    def max_col_label(self) -> int:
        return max((len(self.col_label(c)) for c in range(self.cols)), default=0)

    @property
    def any_pad(self) -> bool:
        return any(self.table.key_is_pad)


class LabelledSource:
    """A source whose rows and keys also carry the user's token labels
    (--labels, as Hugging Face's AttentionMaskVisualizer shows tokens):
    label i names absolute position i. Everything else is the source's."""

    def __init__(self, source, labels: tuple[str, ...]) -> None:
        self._source = source
        self.labels = labels
        self.rows, self.cols = source.rows, source.cols

    def __getattr__(self, name: str):
        return getattr(self._source, name)

    def token(self, position: int | None) -> str:
        return self.labels[position] if position is not None and 0 <= position < len(self.labels) else ""

    def row_label(self, row: int) -> str:
        base = self._source.row_label(row)
        token = self.token(self._source.row_position(row))
        return f"{base} {token}" if token else base

    def col_token(self, col: int) -> str:
        return self.token(self._source.col_position(col))

    def max_row_label(self) -> int:
        from rich.cells import cell_len

        return self._source.max_row_label() + 1 + max((cell_len(x) for x in self.labels), default=0)


def with_labels(source, labels: tuple[str, ...] | None):
    """`source` with token labels, or itself when there are none."""
    return source if not labels else LabelledSource(source, labels)


#: The engine's causal rule (with PAD), the one per-cell statement of it.
_CAUSAL = Pattern(causal=True)


class SyntheticSource:
    """A causal + right-PAD table of any size computed per cell (no storage):
    for the 4,096 x 4,096 benchmark and tests of the grid's cost."""

    def __init__(self, rows: int, cols: int, pad: int = 0) -> None:
        self.rows, self.cols, self.pad = rows, cols, pad
        self.past = cols - rows

    def cell(self, row: int, col: int) -> str:
        return "+".join(_CAUSAL.reasons(self.past + row, col, col >= self.cols - self.pad)) or "allowed"

    def differs(self, row: int, col: int) -> bool:
        return False

    def row_label(self, row: int) -> str:
        return f"q{self.past + row}"

    def col_label(self, col: int) -> str:
        return f"k{col}"

    def col_position(self, col: int) -> int:
        return col

    def col_group(self, col: int) -> str | None:
        return None if not self.past else "cached" if col < self.past else "new"

    def col_is_pad(self, col: int) -> bool:
        return col >= self.cols - self.pad

    def row_is_pad(self, row: int) -> bool:
        return self.past + row >= self.cols - self.pad

    def row_is_focus(self, row: int) -> bool:
        return row == 0

    def max_row_label(self) -> int:
        return 1 + len(str(self.past + self.rows - 1))

    def max_col_label(self) -> int:
        return 1 + len(str(self.cols - 1))

    @property
    def any_pad(self) -> bool:
        return self.pad > 0
