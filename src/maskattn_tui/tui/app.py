"""The Textual app and its one factory, `make_app`, used by the CLI, the
tests and the screenshot export.

One source of truth: `MaskattnApp.model`, a frozen AppModel (model/
app_model.py). Widgets are bound to it and only render it; keys (bound on
the FigureScreen, from the command table), palette entries, clicks, the
explore panel's intents and the playback timer all become actions, and
every action replaces the model with one of its transitions. The sizes of
the panes come from tui.layout's arithmetic, redone when the screen, the
language, the cell mode, zoom or the configuration changes; a step sets
only the figure pane's height (tui.step_fit)."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Container
from textual.reactive import reactive
from textual.timer import Timer

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.lesson.f12 import Figure, StepSpec, load_f12
from maskattn_tui.lesson.stepview import StepView, build_view
from maskattn_tui.model.app_model import AppModel, at_row, new_model
from maskattn_tui.model.commands import BY_ID, action_available
from maskattn_tui.model.step_machine import PlayerState, new_player, shape_of
from maskattn_tui.render.palette import ASCII, UNICODE, Glyphs, Palette
from maskattn_tui.tui import layout as sizes
from maskattn_tui.tui.actions import ExploreActions, PlayerActions
from maskattn_tui.tui.driver import EXIT_SIGNALS, hangup_driver
from maskattn_tui.tui.layout import MIN_HEIGHT, MIN_WIDTH, set_size  # noqa: F401  (export reads MIN_*)
from maskattn_tui.tui.palette import FigureCommands, SafeCommandPalette
from maskattn_tui.tui.screen import FigureScreen
from maskattn_tui.tui.step_fit import fit_step
from maskattn_tui.tui.widgets.bars import BarsView
from maskattn_tui.tui.widgets.condition import ConditionLine, condition_lines
from maskattn_tui.tui.widgets.explain import ExplainView
from maskattn_tui.tui.widgets.grid import GridView
from maskattn_tui.tui.widgets.keybar import KeyBar
from maskattn_tui.tui.widgets.lab import LabView
from maskattn_tui.tui.widgets.panes import pane_title
from maskattn_tui.tui.widgets.player import PlayerBar
from maskattn_tui.tui.widgets.too_small import TooSmall

if TYPE_CHECKING:
    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.explore.session import ExploreSession


class MaskattnApp(PlayerActions, ExploreActions, App[None]):
    CSS_PATH = "app.tcss"
    #: Nothing has focus at start: the keys belong to the figure until Tab.
    AUTO_FOCUS = None
    TITLE = "maskattn-tui"
    COMMANDS = App.COMMANDS | {FigureCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-too-narrow"), (MIN_WIDTH, "-normal"), (sizes.WIDE_WIDTH, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-too-short"), (MIN_HEIGHT, "-tall-enough")]

    #: Everything the screen shows (model/app_model.py).
    model: reactive[AppModel] = reactive(None, always_update=False, repaint=False)  # type: ignore[arg-type]

    def __init__(self, figure: Figure, views: tuple[StepView, ...], state: PlayerState, glyphs: Glyphs = UNICODE,
                 exit_at_end: bool = False, session: ExploreSession | None = None, mask=None) -> None:
        super().__init__(driver_class=hangup_driver())
        #: A mask document (maskmode.document.MaskDocument) to show in mask mode at start (--mask), and its block size.
        self.initial_mask = mask
        self.figure = figure
        self.glyphs = glyphs
        self.exit_at_end = exit_at_end
        self._timer: Timer | None = None
        self._exit_timer: Timer | None = None
        #: The CLI paused the garbage collector for the start: resumed once
        #: the first screen is drawn (then gc.freeze, gc.enable).
        self.gc_paused = False
        #: --row in mask mode: the query row selected when its screen opens (make_app)
        self.start_row: int | None = None
        #: exit() was called: no more actions (the app is closing).
        self.quitting = False
        #: What the layout was computed for (tui.layout), and the result.
        self._layout_key: object = None
        self._plan: sizes.Layout | None = None
        #: Set once the first screen is drawn (tests and benchmarks wait on it).
        self.ready = False
        self.scenario_path = "maskattn-scenario.toml"
        #: The last path `o` opened (a mask or a scenario): the next `o` shows it.
        self.open_path: str | None = None
        self.set_reactive(MaskattnApp.model, new_model(views, state, session))

    # -- screens ----------------------------------------------------------------
    @property
    def main_screen(self) -> FigureScreen:
        """The figure's screen (under any help, palette or dialog)."""
        return self.screen_stack[0] if self.screen_stack else self.screen  # type: ignore[return-value]

    # -- layout -------------------------------------------------------------------
    def get_default_screen(self) -> FigureScreen:
        # The mode's and the size's classes from the start: each set after
        # mount restyles every widget of the screen (half of an explore start).
        model = self.model
        classes = {"-explore": model.exploring, "-lab": model.side_pane == "lab", "-ascii": self.glyphs is ASCII}
        names = [name for name, on in classes.items() if on]
        width, height = self.size
        if width > 0 and height > 0:  # the breakpoints' classes too (Screen._on_resize sets the same)
            for size, points in ((width, self.HORIZONTAL_BREAKPOINTS), (height, self.VERTICAL_BREAKPOINTS)):
                names.append(max((p for p in points if p[0] <= size), key=lambda p: p[0])[1])
        return FigureScreen(classes=" ".join(names))

    def compose(self) -> ComposeResult:
        glyphs, bound = self.glyphs, {"model": MaskattnApp.model}
        parts = {
            "condition": ConditionLine(glyphs, id="condition").data_bind(**bound),
            "figure": Container(id="figure"),
            "grid": GridView(glyphs, id="grid").data_bind(**bound),
            "bars": BarsView(glyphs, id="bars").data_bind(**bound),
            "explain": ExplainView(self.figure, glyphs, id="explain").data_bind(**bound),
            "lab-pane": LabView(glyphs, id="lab-pane").data_bind(**bound),
        }
        yield PlayerBar(self.figure.title, glyphs, id="player").data_bind(**bound)
        yield parts["condition"]
        with Container(id="body"):
            if self.model.exploring:
                yield self._explore_panel()
            with parts["figure"]:
                yield parts["grid"]
                yield parts["bars"]
            with Container(id="side"):
                yield parts["lab-pane"]
                yield parts["explain"]
        yield TooSmall(MIN_WIDTH, MIN_HEIGHT, id="too-small")
        yield KeyBar(glyphs, id="keys").data_bind(**bound)
        self._relayout(parts)  # the sizes before the first layout

    def on_mount(self) -> None:
        self.main_screen.set_class(self.glyphs is ASCII, "-ascii")
        self._show_mode()
        self._relayout()
        self._sync_timer()
        self._titles()
        if self.exit_at_end and self.model.player.at_last and not self.model.player.playing:
            self._schedule_exit()
        self._catch_signals()
        if self.initial_mask is not None:
            from maskattn_tui.tui.mask_screen import show_mask

            screen = show_mask(self, *self.initial_mask)
            if self.start_row is not None:  # --row, once the screen is sized: the row's own key, in its block's cells
                r, t = self.start_row, screen.doc.tables
                self.call_after_refresh(lambda: setattr(screen, "state", screen.state.goto(
                    r, min(r + t.offset, t.keys - 1)).drill().goto(r, min(r + t.offset, t.keys - 1))))
        self.call_after_refresh(self._started)

    def _started(self) -> None:
        self.ready = True
        if self.gc_paused:
            self.gc_paused = False
            gc.freeze()  # what the start made stays out of later collections
            gc.enable()

    def on_resize(self, event: events.Resize) -> None:
        # This handler runs before App._on_resize stores the new size (ours
        # comes first in the MRO), so self.size is still the old one here.
        self._relayout(size=event.size)
        self._titles()

    def _relayout(self, parts: dict | None = None, size: tuple[int, int] | None = None) -> None:
        """The panes' sizes (tui.layout), when the screen, language, cells, zoom or configuration
        change. `parts`: the widgets by id, when called from compose (so the
        first layout already has the sizes: no second pass, no second paint)."""
        model = self.model
        width, height = size if size is not None else self.size
        key = (width, height, model.views, model.lang, model.cells, model.zoomed, model.mode, model.side_pane)
        if width <= 0 or (key, model.player.step) == self._layout_key:
            return
        part = parts.__getitem__ if parts is not None else (lambda name: self.query_one(f"#{name}"))
        grid = part("grid")
        stepped = self._plan is not None and key == (self._layout_key or (None,))[0]
        self._layout_key = (key, model.player.step)
        if stepped:  # a step: the figure pane's height only
            return fit_step(model, self._plan, grid, part("bars"), part("figure"), self.glyphs, grid.tokens())
        cond = condition_lines(model, max(1, width - 2), Palette(glyphs=self.glyphs).tr)
        plan = sizes.figure_layout(width, height, cond, model.zoomed, model.exploring,
                                   lambda room: grid.frame_of(model, room), lab=model.side_pane == "lab")
        self._plan = plan
        grid.room, grid.frame = plan.room, grid.frame_of(model, plan.room)
        set_size(part("condition"), height=cond)
        figure_h = plan.grid_height + (sizes.BARS_STACKED if plan.stacked else 0)
        set_size(part("figure"), height=None if plan.wide or model.zoomed else figure_h,
                 width=plan.column if plan.wide and not model.zoomed else None)
        self.main_screen.set_class(plan.stacked, "-stacked")
        set_size(grid, width=None if model.zoomed else plan.grid_width,
                 height=plan.grid_height if (plan.wide or plan.stacked) and not model.zoomed else None)
        fit_step(model, plan, grid, part("bars"), part("figure"), self.glyphs, grid.tokens())  # draws the grid
        # The other panes' widths too: their first paint is their figure.
        column = plan.body_width - plan.grid_width
        bars, explain, lab = part("bars"), part("explain"), part("lab-pane")
        bars.planned = (plan.grid_width if plan.wide or plan.stacked else column) - sizes.PANE_CELLS
        explain.planned = lab.planned = plan.side_width - sizes.PANE_CELLS
        for view in (bars, explain, lab):
            view.update_figure(None)

    def _titles(self) -> None:
        """The panes' titles, cut at a word for the widths the layout gives
        them (known before the first paint; a title set again repaints its
        pane, so only on a change)."""
        model, plan = self.model, self._plan
        if plan is None:
            return
        grid = self.query_one("#grid", GridView)
        key = "tui.panel.grid_zoomed" if model.zoomed else "tui.panel.grid"
        extra = t("tui.panel.grid_compact", model.lang) if grid.compact else ""
        side = plan.body_width - plan.grid_width
        widths = {"#grid": plan.body_width if model.zoomed else plan.grid_width,
                  "#bars": plan.grid_width if plan.wide or plan.stacked else side,
                  "#explain": plan.side_width, "#lab-pane": plan.side_width}
        lab_key = "tui.x.panel.lab_zoomed" if model.zoomed else "tui.x.panel.lab"
        names = {"#grid": (key, extra), "#bars": ("tui.panel.bars", ""), "#explain": ("tui.panel.explain", ""),
                 "#lab-pane": (lab_key, "")}
        for selector, (name, more) in names.items():
            pane = self.query_one(selector)
            title = pane_title(t(name, model.lang), more, widths[selector], self.glyphs)
            if pane.border_title is None or str(pane.border_title) != title:
                pane.border_title = title

    # -- the one place the model changes --------------------------------------------
    def watch_model(self, old: AppModel | None, new: AppModel) -> None:
        if old is None:
            return
        # The grid's binding is updated after this watcher; the layout and the
        # grid's title below read its figure, so it must see `new` first (else
        # the title said "compact cells" one `c` late).
        self.query_one("#grid", GridView).model = new
        if (old.player.playing, old.player.dwell) != (new.player.playing, new.player.dwell):
            self._sync_timer()
        if old.mode != new.mode or old.side_pane != new.side_pane:
            self._show_mode()
        if old.zoomed != new.zoomed:
            self.query_one("#body").set_class(new.zoomed, "-zoomed")
        self._relayout()
        self._titles()
        panel = self._panel()
        if panel is not None:
            # The panel shows the session, the refusal and labels in the
            # language: a row move or a tick of the player is nothing to it
            # (each sync rewrites its 40 controls).
            if old.lang != new.lang or old.session != new.session:
                panel.state = new.player
            panel.session = new.session
            if old.problem is not new.problem:
                panel.problem = new.problem

    def _show_mode(self) -> None:
        # The panel is 43 of the app's 60 widgets: built on the first `e`.
        model, screen = self.model, self.main_screen
        if model.exploring and self._panel() is None:
            screen.query_one("#body").mount(self._explore_panel(), before=0)
        screen.set_class(model.exploring, "-explore")
        screen.set_class(model.side_pane == "lab", "-lab")
        if not model.exploring:
            self._leave_panel()

    def _leave_panel(self) -> None:
        """The panel is hidden: no list of it stays open, and its keys go
        back to the figure."""
        panel = self._panel()
        if panel is not None:
            from textual.widgets import Select

            for select in panel.query(Select):
                select.expanded = False
        if self.focused is not None:
            self.set_focus(None)

    def figure_resumed(self) -> None:
        """The figure's screen is on top again (a dialog, help or the palette
        closed): the explore panel is there and shows the session, even if
        that dialog came in the same burst as the `e` that built it."""
        if not self.model.exploring or self.quitting:
            return
        panel = self._panel()
        if panel is None or not panel.is_attached:
            self._show_mode()
        elif panel.is_mounted:
            model = self.model
            panel.set_reactive(type(panel).state, model.player)
            panel.set_reactive(type(panel).session, model.session)
            panel.problem = model.problem  # always_update: a sync

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # A focus asked for before `e` hid the panel arrives after it (Space
        # on a list, then e, in one burst): it must not land in the hidden panel.
        if not self.model.exploring and any(node.id == "controls" for node in event.widget.ancestors):
            self._leave_panel()

    def _panel(self):
        """The explore panel if it was built (by its id: looking it up must
        not import it, which costs ~11 ms the first time)."""
        found = self.query("#controls")
        return found.first() if found else None

    def _explore_panel(self):
        from maskattn_tui.tui.widgets.explore_panel import ExplorePanel

        panel = ExplorePanel(self.glyphs, id="controls")
        model = self.model
        panel.set_reactive(ExplorePanel.state, model.player)
        panel.set_reactive(ExplorePanel.session, model.session)
        panel.set_reactive(ExplorePanel.problem, model.problem)
        return panel

    # -- actions: availability from the command table ------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.quitting:
            return False
        return action_available(action, self.model.mode)

    async def run_command(self, command_id: str, *args: object) -> None:
        """A palette entry: runs only if its command is available now, and
        only on the figure's screen (not over a dialog opened meanwhile)."""
        if self.screen is not self.main_screen or self.quitting:
            return
        if command_id == "goto":
            if not self.model.exploring:
                self.action_goto(int(args[0]))  # type: ignore[arg-type]
            return
        command = BY_ID[command_id]
        if action_available(command.action_name, self.model.mode):
            await self.run_action(command.action)

    def action_command_palette(self) -> None:
        if self.use_command_palette and not SafeCommandPalette.is_open(self):
            self.push_screen(SafeCommandPalette(id="--command-palette"))

    def exit(self, *args, **kwargs) -> None:
        self.quitting = True
        super().exit(*args, **kwargs)

    def _catch_signals(self) -> None:
        """SIGTERM, SIGHUP, SIGQUIT: exit as q does, so the driver restores
        the terminal (main screen, cursor, mouse off, tty mode)."""
        import asyncio

        try:
            loop = asyncio.get_running_loop()
            for sig in EXIT_SIGNALS:
                loop.add_signal_handler(sig, self.exit, None, 128 + int(sig))
        except (RuntimeError, NotImplementedError, ValueError):
            pass  # not the main thread (a test's app), or no signals here

    def _sync_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        playing = self.model.player.playing
        self._timer = self.set_interval(self.model.player.dwell, self._tick, name="playback") if playing else None

    def _tick(self) -> None:
        self.model = self.model.with_player(PlayerState.tick)
        if self.exit_at_end and self.model.player.at_last and not self.model.player.playing:
            self._schedule_exit()

    def _schedule_exit(self) -> None:
        if self._exit_timer is None:
            self._exit_timer = self.set_timer(self.model.player.dwell, lambda: self.exit(return_code=0))


def make_app(step: int = 1, lang: str = "en", dwell: float = 2.0, play: bool = False, ascii: bool = False,
             exit_at_end: bool = False, explore: ExploreConfig | None = None, experiments: tuple[str, ...] = (),
             lens: bool = False, spec: StepSpec | None = None, mask=None, block: int | None = None,
             labels: tuple[str, ...] | None = None, row: int | None = None) -> MaskattnApp:
    """The app at `step` in `lang`, or in explore mode on `explore` (with
    `experiments` switched on and the API lens if `lens`); `e` toggles
    between the two. `spec`: a single step instead of the F12 five.
    `exit_at_end`: once playback reaches the last step, wait one dwell and
    exit with code 0. `mask`: a mask document (maskmode.document) shown in mask mode
    in blocks of `block` (None: auto). `labels`: one per position (--labels).
    `row`: the query row selected at start (--row; MaskattnError if none such)."""
    figure = load_f12()
    specs = (spec,) if spec is not None else figure.steps
    views = tuple(build_view(s, len(specs)) for s in specs)
    state = new_player(tuple(shape_of(s) for s in specs), step=step, lang=lang, dwell=dwell,
                       playing=play and explore is None)
    session = None  # the figure alone: the explore package is imported on the first `e`
    if explore is not None or experiments or lens:
        from maskattn_tui.explore.session import new_session

        session = new_session(explore, experiments, lens)
    app = MaskattnApp(figure, views, state, ASCII if ascii else UNICODE, exit_at_end, session,
                      None if mask is None else (mask, block))
    app.labels = labels  # read by the grid views (render.table_source.LabelledSource)
    app.start_row = row if mask is not None else None
    if row is not None and mask is not None and not 0 <= row < mask.tables.rows:
        raise MaskattnError("scale_row", value=row, hi=mask.tables.rows - 1)
    if row is not None and mask is None:
        app.set_reactive(MaskattnApp.model, at_row(app.model, row))
    return app
