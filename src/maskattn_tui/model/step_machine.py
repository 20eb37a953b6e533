"""The player's step-state machine: pure, frozen, no UI.

Every transition returns a new state; a transition that makes no sense in
the current state returns the state unchanged (never raises). Decisions:
- play pressed at the last step restarts from step 1 and plays;
- a manual step (next/prev/first/last/goto) while playing pauses;
- tick advances one step while playing and stops by itself at the last step;
- the selected query row resets to the step's focus row when the step
  changes; the language switch keeps step and row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from maskattn_tui.i18n import LANGS

DWELL_MIN = 0.25
DWELL_MAX = 10.0
DWELL_DEFAULT = 2.0
#: The ladder that +/- walk along (seconds).
DWELL_LADDER = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.5, 10.0)


@dataclass(frozen=True)
class StepShape:
    """What the machine needs to know of a step: how many query rows it has
    and which row is in focus when the step is entered."""

    rows: int
    focus_row: int = 0


def shape_of(spec) -> StepShape:
    """The shape of a lesson step (a `lesson.f12.StepSpec`): its query rows
    and the row in focus when it is entered."""
    return StepShape(rows=len(spec.query_positions), focus_row=spec.focus_rows[0])


@dataclass(frozen=True)
class PlayerState:
    shapes: tuple[StepShape, ...]
    step: int = 1  # 1-based, as shown on screen ("step k of 5")
    playing: bool = False
    dwell: float = DWELL_DEFAULT
    row: int = 0  # selected query row (index into the step's rows)
    lang: str = "en"

    # -- derived ----------------------------------------------------------
    @property
    def steps(self) -> int:
        return len(self.shapes)

    @property
    def at_last(self) -> bool:
        return self.step == self.steps

    @property
    def rows(self) -> int:
        return self.shapes[self.step - 1].rows

    # -- transitions --------------------------------------------------------
    def goto(self, k: int) -> "PlayerState":
        """Jump to step k (a manual step: pauses). Out of range: no-op."""
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= self.steps:
            return self
        return self._enter(k, playing=False)

    def next(self) -> "PlayerState":
        return self.goto(self.step + 1) if not self.at_last else self._pause()

    def prev(self) -> "PlayerState":
        return self.goto(self.step - 1) if self.step > 1 else self._pause()

    def first(self) -> "PlayerState":
        return self.goto(1)

    def last(self) -> "PlayerState":
        return self.goto(self.steps)

    def toggle_play(self) -> "PlayerState":
        if self.playing:
            return replace(self, playing=False)
        if self.at_last:
            return self._enter(1, playing=True)
        return replace(self, playing=True)

    def tick(self) -> "PlayerState":
        """What the playback timer calls once per dwell."""
        if not self.playing:
            return self
        nxt = self._enter(self.step + 1, playing=True) if not self.at_last else self
        return replace(nxt, playing=not nxt.at_last)

    def set_dwell(self, seconds: float) -> "PlayerState":
        """Clamped to [DWELL_MIN, DWELL_MAX]; not a finite number: no-op."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds):
            return self
        return replace(self, dwell=float(min(DWELL_MAX, max(DWELL_MIN, seconds))))

    def slower(self) -> "PlayerState":
        longer = [d for d in DWELL_LADDER if d > self.dwell]
        return self.set_dwell(longer[0]) if longer else self

    def faster(self) -> "PlayerState":
        shorter = [d for d in DWELL_LADDER if d < self.dwell]
        return self.set_dwell(shorter[-1]) if shorter else self

    def select_row(self, row: int) -> "PlayerState":
        if isinstance(row, bool) or not isinstance(row, int) or not 0 <= row < self.rows:
            return self
        return replace(self, row=row)

    def move_row(self, delta: int) -> "PlayerState":
        return self.select_row(self.row + delta)

    def set_language(self, lang: str) -> "PlayerState":
        return replace(self, lang=lang) if lang in LANGS else self

    def toggle_language(self) -> "PlayerState":
        return self.set_language(LANGS[(LANGS.index(self.lang) + 1) % len(LANGS)])

    # -- helpers ------------------------------------------------------------
    def _enter(self, k: int, playing: bool) -> "PlayerState":
        return replace(self, step=k, playing=playing, row=self.shapes[k - 1].focus_row)

    def _pause(self) -> "PlayerState":
        return replace(self, playing=False) if self.playing else self


def new_player(
    shapes: tuple[StepShape, ...],
    step: int = 1,
    lang: str = "en",
    dwell: float = DWELL_DEFAULT,
    playing: bool = False,
) -> PlayerState:
    """A player at `step` (clamped into range), still unless `playing`."""
    if not shapes:
        raise ValueError("a player needs at least one step")
    state = PlayerState(shapes=tuple(shapes), row=shapes[0].focus_row)
    state = state.goto(min(max(1, step), len(shapes))).set_language(lang).set_dwell(dwell)
    return replace(state, playing=playing and not state.at_last)
