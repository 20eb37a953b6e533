"""The mask grid as blocks of lines (render.blocks), sized by arithmetic:
a visibility table (`TableBlock`) and two side by side. A table block asks
its source only for the columns in view, so a row move on a 4,096 x 4,096
table costs what it costs on a 5 x 5. The TUI's grid view, `print` and the
experiments all draw tables with it."""

from __future__ import annotations

from weakref import WeakKeyDictionary

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style

from maskattn_tui.render.blocks import (  # noqa: F401 - the figure's blocks, named here too
    Block, Column, Line, TextBlock, flow, glue, merged, pad_to, text_len, window_of, wrap_text,
)
from maskattn_tui.render.palette import MASK_GLYPHS, Palette
from maskattn_tui.render.table_source import TableSource

SELECT_MARK = {"unicode": "●", "ascii": "*"}
#: Full cells: at least this wide (a glyph, a mark, room either side).
FULL_CELL_MIN = 4
#: One-column glyphs for reasons whose glyph is wider (compact cells): X
#: for future + PAD, # for any other cell blocked by several rules (the
#: legend says so; full cells, key c, show every letter).
COMPACT_GLYPH = {"future+pad": "X"}
SEVERAL_GLYPH = "#"
#: The widest a token label (--labels) makes a full cell; longer ones are cut.
TOKEN_MAX = 8
DIFF_MARK = "!"


def cell_glyph(palette: Palette, reason: str, width: int) -> str:
    """The one place a cell's reason becomes its glyph: the palette's, or a
    one-column stand-in when the cell is that narrow."""
    glyph = palette.cell_glyph(reason)
    if cell_len(glyph) <= width:
        return glyph
    if reason in COMPACT_GLYPH:
        return COMPACT_GLYPH[reason]
    # several rules' letters do not fit: '#' (the legend says so); a wide
    # glyph of one meaning (a block's ▒▒) keeps its first column
    return SEVERAL_GLYPH if "+" in reason else glyph[:1]


#: Each source's scan, while the source lives (weak keys: a dead source's
#: entry goes with it, so a new source never finds an old scan).
_SCANS: WeakKeyDictionary = WeakKeyDictionary()


def table_scan(source: TableSource) -> dict:
    """What a table block needs of the whole table (runs of column groups,
    whether any query is at a PAD position): scanned once per source, so a
    row move never walks the table again."""
    scan = _SCANS.get(source)
    if scan is None:
        scan = source.scan_summary() if hasattr(source, "scan_summary") else walked_scan(source)
        _SCANS[source] = scan
    return scan


def walked_scan(source: TableSource) -> dict:
    """table_scan's answer by one call per column and row (a long table's
    source answers by arithmetic instead: its scan_summary)."""
    runs: list[tuple[int, int, str]] = []
    if source.cols and source.col_group(0) is not None:
        start, group = 0, source.col_group(0)
        for c in range(1, source.cols):
            g = source.col_group(c)
            if g != group:
                runs.append((start, c, group))
                start, group = c, g
        runs.append((start, source.cols, group))
    return {"groups": [(a, b, g) for a, b, g in runs if g],
            "row_pad": any(source.row_is_pad(r) for r in range(source.rows))}


class TableBlock(Block):
    """A visibility table: header lines, then one line per query row."""

    #: A 2-column marked cell shows "!" alone (a compared table: the cell is
    #: the other way round); mask mode keeps the glyph (both its tables carry marks).
    mark_alone = True

    def __init__(self, source: TableSource, palette: Palette, lang: str, row: int,
                 cell_width: int, title: str | None = None, wrap_title: bool = False) -> None:
        self.source, self.palette, self.lang, self.row = source, palette, lang, row
        self.cw = cell_width
        self._cells: dict[tuple, Segment] = {}
        ascii_ = palette.ascii
        self.select = SELECT_MARK["ascii" if ascii_ else "unicode"]
        self.sep = "|" if ascii_ else "│"
        self.pad_word = palette.t("render.pad_query", lang)
        scan = table_scan(source)
        self.any_row_pad = scan["row_pad"]
        self.axis = palette.t("render.queries_axis", lang)
        label = 3 + source.max_row_label() + (1 + cell_len(self.pad_word) if self.any_row_pad else 0)
        self.label_w = max(label, cell_len(self.axis)) + 1
        self.frozen = self.label_w + 1
        self.groups = scan["groups"]
        cells_w = self.frozen + source.cols * self.cw
        #: The title's lines: one, or wrapped to the table's width (side by side).
        self.titles = ([] if not title else [[Segment(title, palette.style("title"))]] if not wrap_title
                       else wrap_text(title, max(12, cells_w), palette.style("title")))
        self.title = title
        #: The header's lines: column labels, the groups' tags, the PAD keys.
        tokens = getattr(source, "labels", None) and cell_width >= FULL_CELL_MIN
        self.kinds = ["labels", *(["tokens"] if tokens else []), *(["groups"] if self.groups else []),
                      *(["pad"] if getattr(source, "any_pad", False) else [])]
        self.header = len(self.titles) + len(self.kinds)
        self.height = self.header + source.rows
        self.width = max([cells_w, *(text_len(line) for line in self.titles)])

    @staticmethod
    def full_width(source: TableSource, palette: Palette, lang: str) -> int:
        """The cell width that shows whole labels and tags."""
        tags = [cell_len(palette.t(k, lang)) for k in ("render.cached", "render.new")] if source.col_group(0) else []
        # token labels (--labels) widen full cells up to TOKEN_MAX; longer ones are cut
        tags += [min(TOKEN_MAX, cell_len(x)) for x in getattr(source, "labels", None) or ()]
        return max(FULL_CELL_MIN, source.max_col_label() + 1, *(t + 1 for t in tags))

    # -- the parts of a line ---------------------------------------------------
    def _label(self, text: str, style: Style | None = None) -> Line:
        return [Segment(set_cell_size(text, self.label_w), style), Segment(self.sep, self.palette.style("dim"))]

    def _row_label(self, r: int) -> Line:
        src, p = self.source, self.palette
        focus = src.row_is_focus(r)
        text = (p.glyphs.arrow if focus else " ") + (self.select if r == self.row else " ") + " " + src.row_label(r)
        style = p.style("focus") if focus else None
        if r == self.row:
            style = (style or Style()) + p.style("selected")
        out = [Segment(text, style)]
        if src.row_is_pad(r):
            out.append(Segment(" " + self.pad_word, p.style("pad")))
        used = text_len(out)
        out.append(Segment(" " * max(0, self.label_w - used)))
        out.append(Segment(self.sep, p.style("dim")))
        return out

    def _cell(self, r: int, c: int) -> list[Segment]:
        src = self.source
        key = (src.cell(r, c), src.differs(r, c), r == self.row)
        cell = self._cells.get(key)
        if cell is None:
            cell = self._cells[key] = self._draw_cell(*key)
        return cell

    def _draw_cell(self, reason: str, differs: bool, selected: bool) -> list[Segment]:
        """One cell's text and style (kept per kind: a row of a long table
        draws a handful of kinds, not a cell at a time)."""
        p, cw = self.palette, self.cw
        mark = DIFF_MARK if differs else ""
        style = p.style(reason)
        if mark and p.color:
            style = style + p.style("diff")
        if selected:
            style = style + Style(underline=True)
        if cw == 1:
            return [Segment(mark or cell_glyph(p, reason, 1), style)]
        if cw < FULL_CELL_MIN:
            # A gap after the glyph where the cell has room for one, so that
            # neighbours never run together ("PW" beside "P" read "PWP"); a
            # block's wide glyph fills its cell (mask mode's blocks join up).
            room = cw - len(mark)
            if room > 1 and reason not in MASK_GLYPHS:
                room -= 1
            elif mark and self.mark_alone:
                # No room for glyph, mark and gap ("F!F!F!" ran together): the
                # mark alone; a cell that differs is the other way round from
                # the table it is compared with (the legend says so).
                return [Segment(set_cell_size(mark, cw), style)]
            return [Segment(set_cell_size(cell_glyph(p, reason, room) + mark, cw), style)]
        glyph_text = cell_glyph(p, reason, cw - 2 - len(mark)) + mark
        # A swatch of cw - 1 cells, its glyph under the key's label (" k3"),
        # and a plain gap: neighbours stay apart.
        return [Segment(set_cell_size(" " + glyph_text, cw - 1), style), Segment(" ")]

    def _header_cols(self, kind: str, c0: int, c1: int, skip: int = 0) -> Line:
        src, p, cw = self.source, self.palette, self.cw
        out: Line = []
        if kind == "blank":
            return out
        if kind == "tokens":
            for c in range(c0, c1):
                out.append(Segment(set_cell_size(" " + src.col_token(c), cw), p.style("dim")))
            return out
        if kind == "labels":
            # Compact: the position (no "k"), on every column it fits above.
            step = 1 if cw >= FULL_CELL_MIN else -(-src.max_col_label() // cw)
            for c in range(c0, c1):
                if cw >= FULL_CELL_MIN:
                    out.append(Segment(set_cell_size(" " + src.col_label(c), cw), p.style("header")))
                elif c % step == 0:
                    label = str(src.col_position(c))
                    room = min(step, src.cols - c) * cw  # the table's last columns: a whole label or none
                    out.append(Segment(set_cell_size(label if cell_len(label) <= room else "", room),
                                       p.style("header")))
                elif c0 == c and c % step:
                    out.append(Segment(" " * cw * (step - c % step)))
            return out
        if kind == "pad":
            word = self.pad_word if cw > cell_len(self.pad_word) else "P"
            for c in range(c0, c1):
                out.append(Segment(set_cell_size(" " + word if cw > 2 else word, cw) if src.col_is_pad(c) else " " * cw,
                                   p.style("dim")))
            return out
        # groups: the tag word at the first column of its run in view (so it
        # stays in view when the grid scrolls sideways), whole or by its
        # first letter where the run is narrower than the word; `skip` cells
        # of the first column are scrolled out of view, so the word starts after them
        for a, b, g in self.groups:
            lo, hi = max(a, c0), min(b, c1)
            if lo >= hi:
                continue
            tag = p.t("render.cached" if g == "cached" else "render.new", self.lang)
            lead = skip if lo == c0 else 0
            room = (hi - lo) * cw - lead
            if cell_len(tag) > room and g == "cached":  # "past" where "cache" does not fit
                tag = p.t("render.cached_short", self.lang)
            word = " " + tag if cell_len(tag) < room else tag if cell_len(tag) <= room else tag[:1]
            out.append(Segment(" " * lead + set_cell_size(word, max(0, room)), p.style(g)))
        return out

    def _line(self, y: int, c0: int, c1: int, skip: int = 0) -> Line:
        if y < len(self.titles):
            return list(self.titles[y])
        y -= len(self.titles)
        kinds = self.kinds
        if y < len(kinds):
            label = self._label(self.axis if y == 0 else "", self.palette.style("header"))
            return label + self._header_cols(kinds[y], c0, c1, skip)
        r = y - len(kinds)
        return self._row_label(r) + merged(seg for c in range(c0, c1) for seg in self._cell(r, c))

    def full(self, y: int) -> Line:
        return self._line(y, 0, self.source.cols)

    def window(self, y: int, x: int, width: int) -> Line:
        if y < len(self.titles):
            return pad_to(self.full(y), width)
        room = max(0, width - self.frozen)
        c0 = max(0, x // self.cw)
        c1 = min(self.source.cols, -(-(x + room) // self.cw))
        skip = x - c0 * self.cw
        line = self._line(y, c0, c1, skip)
        head, rest = (list(Segment.divide(line, [self.frozen, 10**9])) + [[], []])[:2]
        _, shown = (list(Segment.divide(rest, [skip, skip + room])) + [[], []])[:2]
        return pad_to(head, min(width, self.frozen)) + pad_to(shown, room)

    def row_lines(self, row: int) -> list[int]:
        return [self.header + row] if 0 <= row < self.source.rows else []

    def pad_titles(self, n: int) -> None:
        extra = n - len(self.titles)
        if extra > 0:
            self.titles = [*self.titles, *([[]] * extra)]
            self.header += extra
            self.height += extra

    def pad_header(self, n: int) -> None:
        """Blank header lines up to `n` (a neighbour has PAD or group lines)."""
        extra = n - len(self.kinds)
        if extra > 0:
            self.kinds = [*self.kinds, *(["blank"] * extra)]
            self.header += extra
            self.height += extra


class SideBySide(Block):
    """Two small blocks next to each other (step 5's two tables)."""

    def __init__(self, left: Block, right: Block, gap: int = 2) -> None:
        self.left, self.right, self.gap = left, right, gap
        if isinstance(left, TableBlock) and isinstance(right, TableBlock):
            # The same number of title and header lines: the rows line up.
            n = max(len(left.titles), len(right.titles))
            kinds = max(len(left.kinds), len(right.kinds))
            for table in (left, right):
                table.pad_titles(n)
                table.pad_header(kinds)
        self.height = max(left.height, right.height)
        self.width = left.width + gap + right.width
        self.frozen = left.frozen

    def full(self, y: int) -> Line:
        a = self.left.full(y) if y < self.left.height else []
        b = self.right.full(y) if y < self.right.height else []
        return pad_to(a, self.left.width + self.gap) + b

    def row_lines(self, row: int) -> list[int]:
        return sorted(set(self.left.row_lines(row)) | set(self.right.row_lines(row)))


