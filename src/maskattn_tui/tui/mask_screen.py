"""Mask mode: a user's saved mask in the app (`maskattn-tui --mask FILE`,
or `o` and a mask file). Its own Screen over the figure's, with its own
view state (model/mask_model.py: block size, selection, drill-down) and
keys (the command table's "mask" rows). The language is the app model's,
and L, ?, o and q run the app's actions; the scroll keys run the app's
scroll actions (tui/scroll.py) on these panes. It shows the user's table and the inferred rule's
side by side, differing cells marked "!", the bars of the selected row,
the doctor's findings.

Big masks are shown as a block overview (full / partial / empty blocks,
as FlexAttention's BlockMask sees them), block size changeable, with a
drill-down into one block's cells. Esc leaves a drill-down, then mask mode."""

from __future__ import annotations

import os
from collections.abc import Callable

from typing import NamedTuple

from textual.app import ComposeResult
from textual.containers import Container
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Static

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.maskmode.document import MaskDocument
from maskattn_tui.maskmode.saved_doc import open_mask, split_key
from maskattn_tui.maskmode.sources import CellSource
from maskattn_tui.maskmode.text import view_line
from maskattn_tui.model.commands import COMMANDS, MASK
from maskattn_tui.model.mask_model import MaskState, new_state
from maskattn_tui.render.grid_lines import TableBlock
from maskattn_tui.render.mask_lines import COMPACT, GAP
from maskattn_tui.render.palette import ASCII, UNICODE, Glyphs, Palette
from maskattn_tui.tui.bindings import binding
from maskattn_tui.tui.scroll import ScrollActions
from maskattn_tui.tui.themed import ThemedScreen, themed_css
from maskattn_tui.tui.widgets.keybar import KeyBar
from maskattn_tui.tui.widgets.mask_views import MaskBarsView, MaskExplainView, MaskGridView
from maskattn_tui.tui.widgets.panes import pane_title

#: The grid's share of the body's height (the rest: bars and explanation).
GRID_SHARE = 0.6
#: Lines of the grid pane that are not rows in a block overview: the
#: border, the tables' titles, the key labels, the horizontal scrollbar.
GRID_CHROME = 4


#: The app's actions in mask mode too (its model holds the language).
APP_ACTIONS = frozenset({"toggle_language", "help", "quit", "open_scenario"})


class Footer(NamedTuple):
    """What the footer (KeyBar) reads: the mode and the language."""

    mode: str
    lang: str


class MaskScreen(ScrollActions, ThemedScreen):
    BINDINGS = [binding(c, "app." if c.action_name in APP_ACTIONS else "") for c in COMMANDS if MASK in c.modes]
    DEFAULT_CSS = """
    MaskScreen { layout: vertical; }
    MaskScreen > #mask-title { height: 1; background: $panel; color: $foreground; text-style: bold; padding: 0 1; }
    MaskScreen #mask-body { height: 1fr; layout: vertical; }
    MaskScreen #mask-lower { height: 1fr; layout: horizontal; }
    MaskGridView, MaskBarsView, MaskExplainView {
        border-top: solid $primary; border-title-color: $accent; border-title-style: bold;
        scrollbar-size: 1 1; padding: 0 1; scrollbar-gutter: stable;
    }
    MaskGridView { width: 1fr; }
    MaskBarsView { width: 2fr; height: 1fr; overflow-x: hidden; }
    MaskExplainView { width: 3fr; height: 1fr; overflow-x: hidden; }
    MaskScreen.-ascii MaskGridView, MaskScreen.-ascii MaskBarsView, MaskScreen.-ascii MaskExplainView {
        border-top: ascii $primary;
    }
    """ + themed_css("MaskScreen")  # the figure's and mask mode's meanings (tui/themed.py)

    state: reactive[MaskState | None] = reactive(None, always_update=False, repaint=False)

    def __init__(self, doc: MaskDocument, glyphs: Glyphs = UNICODE, size: int | None = None) -> None:
        super().__init__()
        self.doc, self.glyphs = doc, glyphs
        tables = doc.tables
        #: The user's table as _fit measures its labels (its scan is kept on it).
        self._probe = CellSource(tables, "user")
        #: The title bar's text as last shown.
        self._title: str | None = None
        self.set_reactive(MaskScreen.state, new_state(tables.rows, tables.keys, 20, 20, size, tables.least))

    def compose(self) -> ComposeResult:
        glyphs, doc = self.glyphs, self.doc
        yield Static("", id="mask-title", markup=False)
        with Container(id="mask-body"):
            yield MaskGridView(doc, glyphs, id="mask-grid")
            with Container(id="mask-lower"):
                yield MaskBarsView(doc, glyphs, id="mask-bars")
                yield MaskExplainView(doc, glyphs, id="mask-explain")
        yield KeyBar(glyphs, id="mask-keys")

    @property
    def lang(self) -> str:
        return self.app.model.lang

    def on_mount(self) -> None:
        self.watch(self.app, "model", self._app_model_changed, init=False)
        self.set_class(self.glyphs is ASCII, "-ascii")
        if self.glyphs is ASCII:
            self.query_one("#mask-title").styles.text_style = "bold"
        self._fit()
        self._show(self.state)

    def on_resize(self) -> None:
        self._fit()

    def _app_model_changed(self, old, new) -> None:
        if old is not None and old.lang != new.lang and self.is_attached:
            self._fit()  # the labels' width may differ
            self._show(self.state)
            for view in self.query("MaskGridView, MaskBarsView, MaskExplainView"):
                view.update_figure(None)  # a new language: a new figure key

    def _fit(self) -> None:
        """The grid's height, and the cells an overview may take (auto)."""
        width, height = self.size
        if width <= 0:
            return
        grid_h = self._grid_room()
        tables = self.doc.tables
        frozen = TableBlock(self._probe, Palette(glyphs=self.glyphs), self.lang, 0, 1).frozen
        half = (width - 3 - GAP) // 2  # the pane's padding and scrollbar
        self.state = self.state.with_fit(grid_h - GRID_CHROME, (half - frozen) // COMPACT)

    def _chrome(self, state: MaskState) -> int:
        """GRID_CHROME, and on cells the "cached / new" and PAD header lines."""
        if not state.cells:
            return GRID_CHROME
        tables = self.doc.tables
        groups = bool(tables.offset) and tables.causal
        return GRID_CHROME + groups + (tables.pad_keys[0] < tables.pad_keys[1])

    def _grid_room(self) -> int:
        return max(8, int((self.size.height - 2) * GRID_SHARE))

    def watch_state(self, old: MaskState | None, new: MaskState | None) -> None:
        if new is not None and self.is_mounted:
            self._show(new)

    def _show(self, state: MaskState) -> None:
        # The grid as tall as its rows need (a small mask leaves the room to the panes below).
        grid = self.query_one("#mask-grid")
        height = min(self._grid_room(), state.shape[0] + self._chrome(state))
        if grid.styles.height is None or grid.styles.height.value != height:
            grid.styles.height = height
        for view in self.query("MaskGridView, MaskBarsView, MaskExplainView"):
            view.model = state
        lang, tr = self.lang, Palette(glyphs=self.glyphs).tr
        self.query_one("#mask-keys", KeyBar).model = Footer(state.mode, lang)
        name = os.path.basename(self.doc.path)
        picker = self.doc.capture
        if picker is not None:  # a capture folder: which call and slice this table is
            name = picker.label(lang)
        elif self.doc.info.batch is not None:  # which slice of a 3-D / 4-D mask (b / h switch)
            name += t("doctor_tui.slice.which" if self.doc.info.head is not None else "doctor_tui.slice.which3",
                      lang, batch=self.doc.info.batch, head=self.doc.info.head)
        title = tr(t("doctor_tui.title.bar", lang, file=name, view=view_line(state, lang, self.doc.tables.offset)))
        if title != self._title:
            self._title = title
            self.query_one("#mask-title", Static).update(title, layout=False)  # one line, always
        width = self.size.width or 80
        for selector, key in (("#mask-grid", self.doc.grid_title), ("#mask-bars", "tui.panel.bars"),
                              ("#mask-explain", "tui.panel.explain")):
            pane = self.query_one(selector)
            title = pane_title(t(key, lang), "", pane.outer_size.width or width, self.glyphs)
            if pane.border_title is None or str(pane.border_title) != title:
                pane.border_title = title

    # -- actions (the command table's "mask" rows) -----------------------------------
    def action_row(self, delta: int) -> None:
        self.state = self.state.move(delta, 0)

    def action_mask_col(self, delta: int) -> None:
        self.state = self.state.move(0, delta)

    def action_mask_block(self, step: int) -> None:
        self.state = self.state.resize(step)

    def action_mask_auto(self) -> None:
        self.state = self.state.toggle_auto()

    def action_mask_drill(self) -> None:
        self.state = self.state.drill()

    def action_mask_slice(self, dim: int, delta: int) -> None:
        """b / B, h / H: the next or previous batch or head slice (a new mask mode on it)."""
        if self.doc.capture is not None:  # a capture folder: the same call's other batch row or head
            self._capture_step("slice_step", dim, delta)
            return
        lang = self.lang
        if self.doc.info.format == "mask_mod":  # its b and h are arguments, chosen on the command line
            self.app.notify(t("mask_print.mask_mod_slice", lang), markup=False)
            return
        try:
            doc = self.doc.other_slice(dim, delta)
        except MaskattnError as e:
            self.app.notify(e.message(lang), severity="error", markup=False)
            return
        if doc is None:
            self.app.notify(t("doctor_tui.slice.none", lang, what=t(f"doctor_tui.slice.dim{dim}", lang)),
                            markup=False)
            return
        show_mask(self.app, doc)

    def action_mask_call(self, delta: int) -> None:
        self._capture_step("call_step", delta)

    def action_mask_distinct(self, delta: int) -> None:
        self._capture_step("mask_step", delta)

    def _capture_step(self, how: str, *step: int) -> None:
        """n / N, m / M (and b / B, h / H) on a capture folder: mask mode on
        another call's table (or another slice of this call's)."""
        picker, lang = self.doc.capture, self.lang
        moved = _step(picker, how, step) if picker is not None else None
        if moved is None:
            if how == "slice_step":  # says why: the call has one slice along it
                call, b, h, _ = picker.entry
                what = t(f"doctor_tui.slice.dim{step[0]}", lang)
                self.app.notify(t("mask_print.capture_one_slice", lang, call=call["call"], what=what), markup=False)
                return
            self.app.notify(t("capture.picker.not_capture" if picker is None else "capture.picker.end", lang),
                            markup=False)
            return
        told = False
        while True:  # a table the folder's reader refuses is said (the first) and stepped over
            try:
                doc = moved.open()
                break
            except MaskattnError as e:
                if not told:
                    self.app.notify(e.message(lang), severity="error", markup=False)
                    told = True
                moved = _step(moved, how, step)
                if moved is None:
                    return
        show_mask(self.app, doc)

    def action_mask_back(self) -> None:
        if self.state.window is not None:
            self.state = self.state.back()
        else:
            self.app.pop_screen()

    def scrolled(self, pane: str):
        return self.query_one({"grid": "#mask-grid", "bars": "#mask-bars", "side": "#mask-explain"}[pane])

    # Home/End, PgUp/PgDn, their key-axis twins and g (tui/mask_goto.py).
    def action_mask_edge(self, axis: int, last: int) -> None:
        self.state = self.state.to_key_edge(bool(last)) if axis else self.state.to_edge(bool(last))

    def action_mask_page(self, d_rows: int, d_cols: int) -> None:
        self.state = self.state.page(d_rows, d_cols)

    def action_mask_goto(self) -> None:
        from maskattn_tui.tui.mask_goto import ask_goto

        ask_goto(self)


def _step(picker, how: str, step: tuple[int, ...]):
    """The picker's step named by `how` (n / N, m / M, b / B, h / H)."""
    steps = {"call_step": picker.call_step, "mask_step": picker.mask_step, "slice_step": picker.slice_step}
    return steps[how](*step)


def show_mask(app, doc: MaskDocument, size: int | None = None) -> MaskScreen:
    """Mask mode on `doc` (a mask mode already open gives way to it)."""
    if isinstance(app.screen, MaskScreen):
        app.pop_screen()
    screen = MaskScreen(doc, app.glyphs, size)
    app.push_screen(screen)
    return screen


def _read_doc(path: str):
    if os.path.isdir(path):  # a capture folder (maskattn-tui capture)
        from maskattn_tui.maskmode.capture_doc import open_capture

        return open_capture(path)
    path, key = split_key(path)  # FILE[KEY]: one array of a .npz / .safetensors / dict .pt
    return open_mask(path, key=key)


def open_mask_file(app, path: str, opened: Callable[[], None] | None = None) -> None:
    """`o` with a mask file: read and diagnosed in a thread (a large text
    mask takes seconds; the UI keeps drawing, with a notice meanwhile),
    then mask mode on it and `opened()`, or the doctor's one-line reason in
    a notice (what is on screen stays). A newer `o` supersedes it."""
    from textual.worker import get_current_worker

    lang = app.model.lang
    app.notify(t("doctor_read.opening", lang, file=path), markup=False, timeout=4)

    def finish(result) -> None:
        if isinstance(app.screen, ModalScreen):  # help or a dialog opened meanwhile: after it closes
            app.set_timer(0.2, lambda: finish(result))
            return
        if isinstance(result, MaskattnError):
            message = result.message(lang)
            if result.key == "doctor_key_needed":  # the dialog has no --key: name the array in the path
                message += " " + t("doctor_read.open_key_hint", lang, file=path)
            app.notify(message, title=t("doctor_tui.open_failed", lang), severity="error", markup=False,
                       timeout=10)
            return
        show_mask(app, result)
        app.notify(t("doctor_tui.opened", lang, file=path), markup=False)
        if opened is not None:
            opened()

    def work() -> None:
        try:
            result = _read_doc(path)
        except MaskattnError as e:
            result = e
        if not get_current_worker().is_cancelled:
            try:
                app.call_from_thread(finish, result)
            except RuntimeError:  # the app has closed meanwhile
                pass

    app.run_worker(work, thread=True, exclusive=True, group="open-mask", name=f"open {path}")
