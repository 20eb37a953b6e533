"""The Textual app and its one factory, `make_app`, used by the CLI, the
tests and the screenshot export.

One source of truth: `MaskattnApp.state`, a frozen `PlayerState`, and next
to it `MaskattnApp.explore`, a frozen `ExploreSession` (explore mode: the
configuration, the experiments switched on, the API lens, on / off). Widgets
are bound to them with `data_bind` and only render them; keys, clicks,
palette entries, the side panel's intents and the playback timer all become
actions, and every action replaces a state with a transition of the step
machine or of explore.session. `views` (the F12 steps, or the one explored
configuration) is derived from them."""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.app import App, ComposeResult
from textual.containers import Container
from textual.geometry import Region
from textual.reactive import reactive, var
from textual.timer import Timer

from maskattn_tui.errors import MaskattnError
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.session import ExploreSession, Outcome, Problem, new_session
from maskattn_tui.explore.view import explore_view
from maskattn_tui.i18n import t
from maskattn_tui.render.palette import ASCII, UNICODE, Glyphs
from maskattn_tui.lesson.f12 import Figure, StepSpec, load_f12
from maskattn_tui.model.step_machine import PlayerState, new_player
from maskattn_tui.lesson.stepview import StepView, build_view
from maskattn_tui.tui.bindings import (
    EXPLORE_BINDINGS,
    EXPLORE_ONLY_ACTIONS,
    FIGURE_ACTIONS,
    FIGURE_BINDINGS,
    PLAYER_ONLY_IDS,
)
from maskattn_tui.tui.commands import FigureCommands
from maskattn_tui.tui.widgets.bars import BarsView
from maskattn_tui.tui.widgets.base import StateView
from maskattn_tui.tui.widgets.condition import ConditionLine
from maskattn_tui.tui.widgets.explain import ExplainView
from maskattn_tui.tui.widgets.grid import GridView
from maskattn_tui.tui.widgets.keybar import KeyBar
from maskattn_tui.tui.widgets.lab import LabView
from maskattn_tui.tui.widgets.panes import Pane
from maskattn_tui.tui.widgets.player import PlayerBar
from maskattn_tui.tui.widgets.too_small import TooSmall

if TYPE_CHECKING:
    from maskattn_tui.tui.widgets.explore_panel import ExplorePanel

# Explore mode's panel, the dialogs, the help screen and the scenario files
# are imported when first used: most runs never open them, and importing
# their Textual widgets (Input, Select, Button...) costs startup time.

#: Below this the figure is replaced by a notice (80x24 is comfortably above).
MIN_WIDTH, MIN_HEIGHT = 60, 20
#: From this width on, the grid may take up to 70% of the figure row.
ROOMY_WIDTH = 100
#: From this width on, the explanation moves beside the figure.
WIDE_WIDTH = 140
#: The widgets that draw a step, drawn ahead for every step (App._prewarm).
PREWARMED = ("#grid", "#bars", "#explain-caption", "#condition")
#: How long after the screen settles (or the language changes) to draw ahead.
PREWARM_DELAY = 0.05
#: What `s` offers to save to, and `o` to open, at first.
DEFAULT_SCENARIO_PATH = "maskattn-scenario.toml"
#: Player actions that mean nothing with one explored configuration.
PLAYER_ONLY_ACTIONS = frozenset(
    b.action.split("(")[0] for b in FIGURE_BINDINGS if b.id in PLAYER_ONLY_IDS
)


class MaskattnApp(App[None]):
    CSS_PATH = "app.tcss"
    #: Nothing has focus at start: the keys belong to the figure until Tab.
    AUTO_FOCUS = None
    TITLE = "maskattn-tui"
    BINDINGS = [*FIGURE_BINDINGS, *EXPLORE_BINDINGS]
    COMMANDS = App.COMMANDS | {FigureCommands}
    HORIZONTAL_BREAKPOINTS = [
        (0, "-too-narrow"), (MIN_WIDTH, "-normal"), (ROOMY_WIDTH, "-roomy"), (WIDE_WIDTH, "-wide")
    ]
    VERTICAL_BREAKPOINTS = [(0, "-too-short"), (MIN_HEIGHT, "-tall-enough")]

    #: The player: step, playing, dwell, selected row, language.
    state: reactive[PlayerState] = reactive(None, always_update=False, repaint=False)  # type: ignore[arg-type]
    #: Explore mode: configuration, experiments, lens, on / off.
    explore: reactive[ExploreSession] = reactive(ExploreSession, always_update=False)
    #: Derived: the steps shown (the F12 five, or the explored configuration).
    views: var[tuple[StepView, ...]] = var(())
    #: The last refused explore change (None after one that went through).
    explore_problem: var[Problem | None] = var(None, always_update=True)
    #: View-only: the figure enlarged to the whole body (not player state).
    zoomed: var[bool] = var(False)

    def __init__(
        self,
        figure: Figure,
        views: tuple[StepView, ...],
        state: PlayerState,
        glyphs: Glyphs = UNICODE,
        exit_at_end: bool = False,
        session: ExploreSession | None = None,
    ) -> None:
        super().__init__()
        self.figure = figure
        #: The F12 steps (or a single given step), shown when explore is off.
        self.figure_views = views
        self.heading = figure.title
        self.glyphs = glyphs
        self.exit_at_end = exit_at_end
        self._timer: Timer | None = None
        self._exit_timer: Timer | None = None
        self._prewarm_timer: Timer | None = None
        #: The CLI paused the garbage collector for the start: the app
        #: resumes it once the first screen is drawn (resume_gc).
        self.gc_paused = False
        #: exit() was called: no more actions (the app is closing).
        self.quitting = False
        #: The player as it was when explore mode was entered (restored on e).
        self._figure_state = state
        #: The last scenario path saved to or opened (the dialogs' default).
        self.scenario_path = DEFAULT_SCENARIO_PATH
        session = session if session is not None else ExploreSession()
        self.set_reactive(MaskattnApp.explore, session)
        if session.active:
            views, state = self._explore_frame(session.config, state)
        self.set_reactive(MaskattnApp.views, views)
        self.set_reactive(MaskattnApp.state, state)

    # -- layout ---------------------------------------------------------------
    def compose(self) -> ComposeResult:
        views, glyphs = self.views, self.glyphs
        bound = {"state": MaskattnApp.state, "views": MaskattnApp.views}
        yield PlayerBar(self.heading, views, glyphs, id="player").data_bind(**bound, zoomed=MaskattnApp.zoomed)
        yield ConditionLine(views, glyphs, id="condition").data_bind(**bound)
        with Container(id="body"):
            if self.explore.active:
                yield self._explore_panel()
            with Container(id="figure"):
                yield Pane(GridView(views, glyphs, id="grid"), title_key="tui.panel.grid_short", glyphs=glyphs,
                           id="grid-pane").data_bind(state=MaskattnApp.state)
                yield Pane(BarsView(views, glyphs, id="bars"), title_key="tui.panel.bars", glyphs=glyphs,
                           id="bars-pane").data_bind(state=MaskattnApp.state)
            yield Pane(LabView(views, glyphs, id="lab"), title_key="tui.x.panel.lab", glyphs=glyphs,
                       id="lab-pane").data_bind(state=MaskattnApp.state)
            yield Pane(ExplainView(self.figure, views, glyphs, id="explain"), title_key="tui.panel.explain", glyphs=glyphs,
                       id="explain-pane").data_bind(state=MaskattnApp.state)
        yield TooSmall(MIN_WIDTH, MIN_HEIGHT, id="too-small")
        yield KeyBar(views, glyphs, id="keys").data_bind(**bound)

    def on_mount(self) -> None:
        self.screen.set_class(self.glyphs is ASCII, "-ascii")
        for widget_id in ("grid", "bars", "explain"):
            self.query_one(f"#{widget_id}").data_bind(state=MaskattnApp.state, views=MaskattnApp.views)
        self.query_one("#lab", LabView).data_bind(state=MaskattnApp.state, session=MaskattnApp.explore)
        self._show_mode(self.explore.active)
        self._sync_timer()
        if self.exit_at_end and self.state.at_last and not self.state.playing:
            self._schedule_exit()
        self.call_after_refresh(self._prewarm_soon)

    # -- the one place the state changes ------------------------------------
    def apply(self, transition: Callable[[PlayerState], PlayerState]) -> None:
        self.state = transition(self.state)

    def watch_state(self, old: PlayerState | None, new: PlayerState) -> None:
        if old is None or old.playing != new.playing or old.dwell != new.dwell:
            self._sync_timer()
        if old is not None and old.lang != new.lang:
            self._prewarm_soon()

    # -- drawing ahead ------------------------------------------------------------
    def _prewarm_soon(self) -> None:
        """Draw the other steps shortly, once the screen has settled."""
        if self._prewarm_timer is not None:
            self._prewarm_timer.stop()
        self._prewarm_timer = self.set_timer(PREWARM_DELAY, self._prewarm)

    def _prewarm(self) -> None:
        """Draw every step of the figure at the present widths while the app
        is idle: a step's first drawing (Rich laying out its tables) costs
        more than the repaint, so the first visit to a step would be slower
        than the next ones."""
        self._prewarm_timer = None
        stack = self.screen_stack
        if stack and not self.explore.active and stack[-1] is stack[0]:
            # (Explore mode has one configuration: nothing else to draw.)
            states = [self.state.goto(k) for k in range(1, self.state.steps + 1)]
            for widget_id in PREWARMED:
                self.query_one(widget_id, StateView).prewarm(states)
        if self.gc_paused:  # the first drawing ahead ends the start
            self.gc_paused = False
            resume_gc()

    # -- explore mode: the other place, through explore.session ----------------
    def _explore_frame(self, config: ExploreConfig, state: PlayerState) -> tuple[tuple[StepView, ...], PlayerState]:
        """The views and player for `config`: one step, the row kept if it
        still exists, language and dwell kept, not playing."""
        view = explore_view(config)
        shape = view.spec.shape
        explored = len(state.shapes) == 1 and len(self.views) == 1 and self.views[0].spec.kind == "explore"
        row = state.row if explored and state.row < shape.rows else shape.focus_row
        return (view,), replace(state, shapes=(shape,), step=1, playing=False, row=row)

    def apply_explore(self, transition: Callable[[ExploreSession], Outcome]) -> Problem | None:
        """Run a transition of explore.session; a refusal keeps the session
        and is shown (a notification, and in the side panel)."""
        session, problem = transition(self.explore)
        old = self.explore
        if session != old:
            if session.active and (not old.active or session.config != old.config):
                if not old.active:
                    self._figure_state = self.state
                    self._stop_playing()
                views, state = self._explore_frame(session.config, self.state)
            elif old.active and not session.active:
                views = self.figure_views
                state = replace(self._figure_state, lang=self.state.lang, dwell=self.state.dwell, playing=False)
            else:
                views, state = self.views, self.state
            self.views = views
            self.state = state
            self.explore = session
            self._show_mode(session.active)
        self.explore_problem = problem
        if problem is not None:
            self.notify(problem.message(self.state.lang), title=t("tui.x.refused", self.state.lang),
                        severity="warning", markup=False)
        return problem

    def _stop_playing(self) -> None:
        if self.state.playing:
            self.apply(PlayerState.toggle_play)

    def _explore_panel(self) -> ExplorePanel:
        from maskattn_tui.tui.widgets.explore_panel import ExplorePanel

        return ExplorePanel(self.glyphs, id="controls").data_bind(
            state=MaskattnApp.state, session=MaskattnApp.explore, problem=MaskattnApp.explore_problem)

    def _show_mode(self, active: bool) -> None:
        # The panel is 43 of the app's 60 widgets: built on the first `e`, not
        # at every start (about 70 ms of startup measured).
        if active and not self.query("#controls"):
            self.query_one("#body").mount(self._explore_panel(), before=0)
        self.screen.set_class(active, "-explore")
        session = self.explore
        self.screen.set_class(active and bool(session.experiments or session.lens), "-lab")
        if not active and self.focused is not None:
            self.set_focus(None)  # the panel is gone: its keys go back to the figure

    def watch_zoomed(self, zoomed: bool) -> None:
        if self.is_mounted:
            self.query_one("#body").set_class(zoomed, "-zoomed")

    # -- playback ------------------------------------------------------------
    def _sync_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.state.playing:
            self._timer = self.set_interval(self.state.dwell, self._tick, name="playback")

    def _tick(self) -> None:
        self.apply(PlayerState.tick)
        if self.exit_at_end and self.state.at_last and not self.state.playing:
            self._schedule_exit()

    def _schedule_exit(self) -> None:
        if self._exit_timer is None:
            self._exit_timer = self.set_timer(self.state.dwell, lambda: self.exit(return_code=0))

    # -- actions (from BINDINGS, the palette and clicks) ------------------------
    def exit(self, *args, **kwargs) -> None:
        self.quitting = True
        super().exit(*args, **kwargs)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Keys typed after q in one burst (a pasted or mistyped "quest...")
        # arrive while the app closes: mounting the explore panel then failed.
        if self.quitting:
            return False
        # The figure's keys do nothing while help or the palette is on top.
        if action in FIGURE_ACTIONS and len(self.screen_stack) > 1:
            return False
        if action in EXPLORE_ONLY_ACTIONS and (not self.explore.active or len(self.screen_stack) > 1):
            return False
        if action in ("toggle_explore", "open_scenario") and len(self.screen_stack) > 1:
            return False
        if action in PLAYER_ONLY_ACTIONS and self.explore.active:
            return False
        return True

    def action_prev(self) -> None:
        self.apply(PlayerState.prev)

    def action_next(self) -> None:
        self.apply(PlayerState.next)

    def action_first(self) -> None:
        self.apply(PlayerState.first)

    def action_last(self) -> None:
        self.apply(PlayerState.last)

    def action_goto(self, k: int) -> None:
        self.apply(lambda s: s.goto(k))

    def action_toggle_play(self) -> None:
        self.apply(PlayerState.toggle_play)

    def action_slower(self) -> None:
        self.apply(PlayerState.slower)

    def action_faster(self) -> None:
        self.apply(PlayerState.faster)

    def action_row(self, delta: int) -> None:
        self.apply(lambda s: s.move_row(delta))
        if self.explore.active:
            self.call_after_refresh(self._reveal_row)

    def _reveal_row(self) -> None:
        """Up to 32 query rows: scroll the grid so the selected one shows."""
        grid = self.query_one("#grid", GridView)
        pane = self.query_one("#grid-pane", Pane)
        if pane.max_scroll_y <= 0:
            return
        label = re.compile(rf"(?<!\S)q{self.views[0].table.query_positions[self.state.row]}(?!\S)")
        options = self.console.options.update(width=max(1, grid.content_size.width), height=None)
        for y, line in enumerate(self.console.render_lines(grid.render(), options, pad=False)):
            if label.search("".join(segment.text for segment in line)):
                # The grid is the pane's only child, at the top of its scroll area.
                pane.scroll_to_region(Region(int(pane.scroll_x), y, 1, 1), animate=False, immediate=True)
                return

    def action_toggle_language(self) -> None:
        self.apply(PlayerState.toggle_language)

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed

    def action_help(self) -> None:
        from maskattn_tui.tui.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            palette_key = self.COMMAND_PALETTE_BINDING.replace("ctrl+", "^")
            self.push_screen(HelpScreen(self.state.lang, palette_key, ascii=self.glyphs is ASCII))

    def action_scroll_figure(self, dx: int) -> None:
        self.query_one("#grid-pane", Pane).scroll_relative(x=dx, animate=False)
        if self.screen.has_class("-lab"):
            self.query_one("#lab-pane", Pane).scroll_relative(x=dx, animate=False)

    def action_scroll_explanation(self, pages: int) -> None:
        # With an experiment or the lens on, their pane has the explanation's place.
        pane = self.query_one("#lab-pane" if self.screen.has_class("-lab") else "#explain-pane", Pane)
        if pages < 0:
            pane.scroll_page_up(animate=False)
        else:
            pane.scroll_page_down(animate=False)

    def on_grid_view_row_clicked(self, message: GridView.RowClicked) -> None:
        self.apply(lambda s: s.select_row(message.row))

    # -- explore mode's actions ---------------------------------------------------
    def action_toggle_explore(self) -> None:
        self.apply_explore(ExploreSession.toggle_active)

    def action_toggle_experiment(self, name: str) -> None:
        self.apply_explore(lambda s: s.toggle_experiment(name))

    def action_toggle_lens(self) -> None:
        self.apply_explore(ExploreSession.toggle_lens)

    def action_leave_controls(self) -> None:
        self.set_focus(None)

    def on_explore_panel_intent(self, intent: ExplorePanel.Intent) -> None:
        kind, name, value = intent.kind, intent.name, intent.value
        if kind == "field":
            self.apply_explore(lambda s: s.set_field(name, value))  # type: ignore[arg-type]
        elif kind == "assign":
            self.apply_explore(lambda s: s.assign(str(value)))
        elif kind == "experiment":
            self.apply_explore(lambda s: s.set_experiment(name, bool(value)))
        elif kind == "lens":
            self.apply_explore(lambda s: s.set_lens(bool(value)))

    def action_save_scenario(self) -> None:
        from maskattn_tui.tui.scenario_dialogs import PathDialog

        config, lang = self.explore.config, self.state.lang
        self.push_screen(PathDialog("save", lang, self.scenario_path, ascii=self.glyphs is ASCII),
                         lambda path: self._save(config, path))

    def _save(self, config: ExploreConfig, path: str | None, overwrite: bool = False) -> None:
        from maskattn_tui.explore.scenario_file import save_scenario
        from maskattn_tui.tui.scenario_dialogs import ConfirmDialog

        lang = self.state.lang
        if not path:
            return
        path = os.path.expanduser(path)
        try:
            save_scenario(config, path, overwrite=overwrite)
        except MaskattnError as e:
            if e.key == "explore_file_exists" and not overwrite:
                question = t("tui.x.confirm.overwrite", lang, file=path)
                self.push_screen(ConfirmDialog(lang, question, ascii=self.glyphs is ASCII),
                                 lambda yes: self._save(config, path, overwrite=True) if yes else self._not_saved(path))
                return
            self.notify(e.message(lang), title=t("tui.x.save.failed", lang), severity="error", markup=False)
            return
        self.scenario_path = path
        self.notify(t("tui.x.save.done", lang, file=path), markup=False)

    def _not_saved(self, path: str) -> None:
        self.notify(t("tui.x.save.kept", self.state.lang, file=path), markup=False)

    def action_open_scenario(self) -> None:
        from maskattn_tui.tui.scenario_dialogs import PathDialog

        lang = self.state.lang
        self.push_screen(PathDialog("open", lang, self.scenario_path, ascii=self.glyphs is ASCII), self._open)

    def _open(self, path: str | None) -> None:
        from maskattn_tui.explore.scenario_file import load_scenario

        lang = self.state.lang
        if not path:
            return
        path = os.path.expanduser(path)
        try:
            config = load_scenario(path)
        except MaskattnError as e:
            # The message names the file, the key and the problem; the
            # configuration on screen stays as it was.
            self.notify(e.message(lang), title=t("tui.x.open.failed", lang), severity="error",
                        markup=False, timeout=10)
            return
        self.scenario_path = path
        self.apply_explore(lambda s: s.load(config))
        self.notify(t("tui.x.open.done", lang, file=path), markup=False)


def resume_gc() -> None:
    """After a start with the garbage collector paused (the CLI pauses it
    before importing the app: the imports, the app and its first drawing
    make objects that live as long as the app, and collecting among them
    cost about 28 ms of a 0.29 s start, measured with benchmarks/run.py):
    keep what has been made so far out of later collections (gc.freeze),
    then collect as usual."""
    gc.freeze()
    gc.enable()


def make_app(
    step: int = 1,
    lang: str = "en",
    dwell: float = 2.0,
    play: bool = False,
    ascii: bool = False,
    exit_at_end: bool = False,
    explore: ExploreConfig | None = None,
    experiments: tuple[str, ...] = (),
    lens: bool = False,
    spec: StepSpec | None = None,
) -> MaskattnApp:
    """The app at `step` in `lang`, or in explore mode on `explore` (with
    `experiments` switched on and the API lens if `lens`); `e` toggles
    between the two. `spec`: a single step instead of the F12 five (the
    figure side). `exit_at_end`: once playback reaches the last step, wait
    one dwell and exit with code 0."""
    figure = load_f12()
    specs = (spec,) if spec is not None else figure.steps
    views = tuple(build_view(s, len(specs)) for s in specs)
    state = new_player(tuple(s.shape for s in specs), step=step, lang=lang, dwell=dwell,
                       playing=play and explore is None)
    session = new_session(explore, experiments, lens)
    return MaskattnApp(figure, views, state, ASCII if ascii else UNICODE, exit_at_end, session)
