"""The app model: everything the screen shows, as one frozen value, and
its transitions. Pure Python: no Textual, no Rich; tested on its own.

What it stores: the player (step, row, dwell, playing, language), the
explore session, the figure's player saved while exploring, zoom and the
cell mode. What it derives: the steps shown (cached per configuration),
the mode, which side pane shows, what the footer offers (model.commands).
The language is a view setting carried by the player, kept across every
transition here (entering and leaving explore mode included)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Callable

from maskattn_tui.model.step_machine import DWELL_MAX, DWELL_MIN, PlayerState, shape_of

if TYPE_CHECKING:
    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.explore.session import ExploreSession, Outcome, Problem
    from maskattn_tui.lesson.stepview import StepView


@lru_cache(maxsize=16)
def explored_views(config: ExploreConfig) -> tuple[StepView, ...]:
    """The one step of an explored configuration (computed once per configuration)."""
    from maskattn_tui.explore.view import explore_view

    return (explore_view(config),)


@dataclass(frozen=True)
class AppModel:
    player: PlayerState
    #: None until explore mode is first asked for: the figure alone never
    #: imports the explore package (its start is a few ms shorter).
    session: ExploreSession | None
    #: The five steps (or one given step): what figure mode shows.
    lesson: tuple[StepView, ...] = field(repr=False)
    #: The figure's player while exploring (restored when leaving).
    figure_player: PlayerState | None = None
    zoomed: bool = False
    #: The grid's cells: "auto" (full where they fit, else compact), "full" or "compact".
    cells: str = "auto"
    #: The last refused explore change (None after one that went through).
    problem: Problem | None = None

    # -- derived ------------------------------------------------------------
    @property
    def exploring(self) -> bool:
        return self.session is not None and self.session.active

    @property
    def mode(self) -> str:
        return "explore" if self.exploring else "figure"

    @property
    def views(self) -> tuple[StepView, ...]:
        return explored_views(self.session.config) if self.exploring else self.lesson  # type: ignore[union-attr]

    @property
    def view(self) -> StepView:
        return self.views[min(self.player.step, len(self.views)) - 1]

    @property
    def lang(self) -> str:
        return self.player.lang

    @property
    def side_pane(self) -> str:
        """"lab" (experiments, API lens) or "explain"."""
        s = self.session
        return "lab" if s is not None and s.active and (s.experiments or s.lens) else "explain"

    @property
    def dwell_at_limit(self) -> str | None:
        """"max" / "min" when + / - can go no further (said, not silent)."""
        if self.player.dwell >= DWELL_MAX:
            return "max"
        if self.player.dwell <= DWELL_MIN:
            return "min"
        return None

    # -- transitions ----------------------------------------------------------
    def with_player(self, transition: Callable[[PlayerState], PlayerState]) -> AppModel:
        return replace(self, player=transition(self.player))

    def toggle_zoom(self) -> AppModel:
        return replace(self, zoomed=not self.zoomed)

    def toggle_cells(self, compact_now: bool) -> AppModel:
        """Full <-> compact, from what is on screen now (`compact_now`)."""
        return replace(self, cells="full" if compact_now else "compact")

    def explore(self, transition: Callable[[ExploreSession], Outcome]) -> AppModel:
        """Run a transition of the explore session: entering keeps the
        figure's player to come back to, a new configuration keeps the row
        where it still exists, leaving restores the figure's player (with
        the language and dwell of now); a refusal keeps everything and is
        recorded in `problem`."""
        old = self.session if self.session is not None else idle_session()
        session, problem = transition(old)
        model = replace(self, problem=problem)
        if session == old:
            return model if self.session is not None else replace(model, session=old)
        player = self.player
        if session.active and not old.active:
            model = replace(model, figure_player=player)
            player = replace(player, playing=False)
        if session.active:
            view = explored_views(session.config)[0]
            shape = shape_of(view.spec)
            kept = old.active and player.row < shape.rows
            player = replace(player, shapes=(shape,), step=1, playing=False,
                             row=player.row if kept else shape.focus_row)
        elif old.active:
            saved = self.figure_player or player
            player = replace(saved, lang=player.lang, dwell=player.dwell, playing=False)
            model = replace(model, figure_player=None)
        return replace(model, session=session, player=player)


def idle_session() -> ExploreSession:
    """Explore mode off, the default configuration (imported when first needed)."""
    from maskattn_tui.explore.session import ExploreSession

    return ExploreSession()


def new_model(lesson: tuple[StepView, ...], player: PlayerState, session: ExploreSession | None) -> AppModel:
    """The model at start: `session` active means explore mode from the
    start; None: no session until explore mode is asked for."""
    model = AppModel(player=player, session=None, lesson=lesson)
    if session is not None and session.active:
        return model.explore(lambda s: (session, None))
    return replace(model, session=session)


def at_row(model: AppModel, row: int) -> AppModel:
    """`model` with query row `row` of its current step selected (--row);
    MaskattnError (one line, exit 2) when the table has no such row."""
    from maskattn_tui.errors import MaskattnError

    rows = model.player.shapes[model.player.step - 1].rows
    if not 0 <= row < rows:
        raise MaskattnError("scale_row", value=row, hi=rows - 1)
    return model.with_player(lambda p: replace(p, row=row))
