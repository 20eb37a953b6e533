"""The Textual app and its one factory, `make_app`, used by the CLI, the
tests and the screenshot export.

One source of truth: `MaskattnApp.state`, a frozen `PlayerState`. Widgets
are bound to it with `data_bind` and only render it; keys, clicks, palette
entries and the playback timer all become actions, and every action replaces
the state with a transition of the step machine."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App, ComposeResult
from textual.containers import Container
from textual.reactive import reactive, var
from textual.timer import Timer

from maskattn_tui.render.palette import ASCII, UNICODE, Glyphs
from maskattn_tui.scenario import Figure, StepSpec, load_f12
from maskattn_tui.step_machine import PlayerState, new_player
from maskattn_tui.stepview import StepView, build_view
from maskattn_tui.tui.bindings import FIGURE_ACTIONS, FIGURE_BINDINGS
from maskattn_tui.tui.commands import FigureCommands
from maskattn_tui.tui.help import HelpScreen
from maskattn_tui.tui.widgets.bars import BarsView
from maskattn_tui.tui.widgets.condition import ConditionLine
from maskattn_tui.tui.widgets.explain import ExplainView
from maskattn_tui.tui.widgets.grid import GridView
from maskattn_tui.tui.widgets.keybar import KeyBar
from maskattn_tui.tui.widgets.panes import Pane
from maskattn_tui.tui.widgets.player import PlayerBar
from maskattn_tui.tui.widgets.too_small import TooSmall

#: Below this the figure is replaced by a notice (80x24 is comfortably above).
MIN_WIDTH, MIN_HEIGHT = 60, 20
#: From this width on, the grid may take up to 70% of the figure row.
ROOMY_WIDTH = 100
#: From this width on, the explanation moves beside the figure.
WIDE_WIDTH = 140


class MaskattnApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "maskattn-tui"
    BINDINGS = list(FIGURE_BINDINGS)
    COMMANDS = App.COMMANDS | {FigureCommands}
    HORIZONTAL_BREAKPOINTS = [
        (0, "-too-narrow"), (MIN_WIDTH, "-normal"), (ROOMY_WIDTH, "-roomy"), (WIDE_WIDTH, "-wide")
    ]
    VERTICAL_BREAKPOINTS = [(0, "-too-short"), (MIN_HEIGHT, "-tall-enough")]

    #: The player: step, playing, dwell, selected row, language.
    state: reactive[PlayerState] = reactive(None, always_update=False)  # type: ignore[arg-type]
    #: View-only: the figure enlarged to the whole body (not player state).
    zoomed: var[bool] = var(False)

    def __init__(
        self,
        figure: Figure,
        views: tuple[StepView, ...],
        state: PlayerState,
        glyphs: Glyphs = UNICODE,
        exit_at_end: bool = False,
    ) -> None:
        super().__init__()
        self.figure = figure
        self.views = views
        # The header's title: the figure's, or an explored step's own.
        explored = len(views) == 1 and views[0].spec.kind == "explore"
        self.heading = views[0].spec.title if explored and views[0].spec.title else figure.title
        self.glyphs = glyphs
        self.exit_at_end = exit_at_end
        self._timer: Timer | None = None
        self._exit_timer: Timer | None = None
        self.set_reactive(MaskattnApp.state, state)

    # -- layout ---------------------------------------------------------------
    def compose(self) -> ComposeResult:
        views, glyphs = self.views, self.glyphs
        bound = {"state": MaskattnApp.state}
        yield PlayerBar(self.heading, views, glyphs, id="player").data_bind(**bound, zoomed=MaskattnApp.zoomed)
        yield ConditionLine(views, glyphs, id="condition").data_bind(**bound)
        with Container(id="body"):
            with Container(id="figure"):
                yield Pane(GridView(views, glyphs, id="grid"), title_key="tui.panel.grid_short", glyphs=glyphs,
                           id="grid-pane").data_bind(**bound)
                yield Pane(BarsView(views, glyphs, id="bars"), title_key="tui.panel.bars", glyphs=glyphs,
                           id="bars-pane").data_bind(**bound)
            yield Pane(ExplainView(self.figure, views, glyphs, id="explain"), title_key="tui.panel.explain", glyphs=glyphs,
                       id="explain-pane").data_bind(**bound)
        yield TooSmall(MIN_WIDTH, MIN_HEIGHT, id="too-small")
        yield KeyBar(views, glyphs, id="keys").data_bind(**bound)

    def on_mount(self) -> None:
        self.screen.set_class(self.glyphs is ASCII, "-ascii")
        for widget_id in ("grid", "bars", "explain"):
            self.query_one(f"#{widget_id}").data_bind(state=MaskattnApp.state)
        self._sync_timer()
        if self.exit_at_end and self.state.at_last and not self.state.playing:
            self._schedule_exit()

    # -- the one place the state changes ------------------------------------
    def apply(self, transition: Callable[[PlayerState], PlayerState]) -> None:
        self.state = transition(self.state)

    def watch_state(self, old: PlayerState | None, new: PlayerState) -> None:
        if old is None or old.playing != new.playing or old.dwell != new.dwell:
            self._sync_timer()

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
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The figure's keys do nothing while help or the palette is on top.
        if action in FIGURE_ACTIONS and len(self.screen_stack) > 1:
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

    def action_toggle_language(self) -> None:
        self.apply(PlayerState.toggle_language)

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            palette_key = self.COMMAND_PALETTE_BINDING.replace("ctrl+", "^")
            self.push_screen(HelpScreen(self.state.lang, palette_key, ascii=self.glyphs is ASCII))

    def action_scroll_figure(self, dx: int) -> None:
        self.query_one("#grid-pane", Pane).scroll_relative(x=dx, animate=False)

    def action_scroll_explanation(self, pages: int) -> None:
        pane = self.query_one("#explain-pane", Pane)
        if pages < 0:
            pane.scroll_page_up(animate=False)
        else:
            pane.scroll_page_down(animate=False)

    def on_grid_view_row_clicked(self, message: GridView.RowClicked) -> None:
        self.apply(lambda s: s.select_row(message.row))


def make_app(
    step: int = 1,
    lang: str = "en",
    dwell: float = 2.0,
    play: bool = False,
    ascii: bool = False,
    exit_at_end: bool = False,
    spec: StepSpec | None = None,
) -> MaskattnApp:
    """The app at `step` in `lang`; with `spec`, that single step instead of
    the F12 five. `exit_at_end`: once playback reaches the last step, wait
    one dwell and exit with code 0."""
    figure = load_f12()
    specs = (spec,) if spec is not None else figure.steps
    views = tuple(build_view(s, len(specs)) for s in specs)
    state = new_player(tuple(s.shape for s in specs), step=step, lang=lang, dwell=dwell, playing=play)
    return MaskattnApp(figure, views, state, ASCII if ascii else UNICODE, exit_at_end)
