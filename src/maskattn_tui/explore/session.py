"""Explore mode's interactive state and its transitions: pure, frozen, no UI.

`ExploreSession` is the one record the app keeps for explore mode: the
configuration, which experiments are switched on, whether the API lens is
shown, and whether explore mode is on at all. Every transition returns an
`Outcome` = (next session, problem or None). A bad value never replaces a
good one: on a problem the session returned is the *old* one, and the
problem says why, in either language (`problem.message(lang)`).

    s = ExploreSession(active=True)
    s, problem = s.set_field("past", "40")     # -> (s unchanged, problem)
    s, problem = s.assign("V[4]=9999")          # V at key 4 set
    s, _ = s.toggle_experiment("leak-probe")

Text fields take what a person types ("3", " 0.5 ", "left"); the values
are converted and validated here, then by ExploreConfig itself."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t

from maskattn_tui.explore.api_lens import LENS_NAMES
from maskattn_tui.explore.config import ExploreConfig
from maskattn_tui.explore.experiments import EXPERIMENTS, PROBE_VALUE
from maskattn_tui.explore.fields import BY_NAME, PANEL_FIELDS, TextError, parse_text, shown_text
from maskattn_tui.explore.patterns import PRESETS, preset_changes

#: Fields a person can set from a text box (or switch, or select), and
#: their kind: derived from the one schema (explore.fields).
TEXT_FIELDS = {f.name: f.kind for f in PANEL_FIELDS}
CHOICES = {f.name: f.choices for f in PANEL_FIELDS if f.kind == "choice"}
#: The pseudo-field a panel's preset picker sets (see ExploreSession.preset).
PRESET = "preset"


@dataclass(frozen=True)
class Problem:
    """Why a change was refused: a string key of tui_explore.json and its
    params, or an engine error (`inner`) told in front of `key`."""

    key: str
    params: dict = field(default_factory=dict)
    inner: MaskattnError | None = None

    def message(self, lang: str) -> str:
        params = dict(self.params)
        if self.inner is not None:
            params["problem"] = self.inner.message(lang)
        return t(self.key, lang, **params)


Outcome = tuple["ExploreSession", Problem | None]


def shown_value(config: ExploreConfig, name: str) -> str:
    """A field as its text box shows it."""
    if name in BY_NAME:
        return shown_text(BY_NAME[name], getattr(config, name))
    return str(getattr(config, name, ""))


#: kind of text expected -> the refusal's message key
_EXPECTED = {"int": "tui.x.err.whole", "number": "tui.x.err.number", "bool": "tui.x.err.bool",
             "optional_int": "tui.x.err.optional_whole", "lengths": "tui.x.err.lengths",
             "parents": "tui.x.err.parents", "spans": "tui.x.err.spans", "too_large": "tui.x.err.too_large"}


#: More digits than any field or index can hold (the seed's 0..4294967295 has 10);
#: int() of more than 4,300 digits raises, and echoing them makes a 5 KB message.
MAX_DIGITS = 12
#: An echoed value is cut to this many characters.
MAX_ECHO = 40


def _echo(text: str) -> str:
    """What the person typed, cut to a readable length for a message."""
    return text if len(text) <= MAX_ECHO else f"{text[:MAX_ECHO // 2]}…{text[-(MAX_ECHO // 2 - 1):]}"


def _parse(name: str, text: str) -> object:
    """The typed text as the field's kind; `_ParseError` (carrying a
    Problem) when it is not one."""
    try:
        return parse_text(BY_NAME[name], text)
    except TextError as e:
        raise _ParseError(Problem(_EXPECTED[e.expected], {"field": name, "value": _echo(text)})) from None


class _ParseError(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.key)
        self.problem = problem


#: V[4]=9999 · V[3-5]=9999 · V[future]=9999 · S[0,2]=5 · score[1, 4] = -2
_ASSIGN = re.compile(
    r"^\s*(?P<what>v|s|score)\s*\[\s*(?P<index>[^\]]*?)\s*\]\s*=\s*(?P<value>\S+)\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class ExploreSession:
    config: ExploreConfig = field(default_factory=ExploreConfig)
    #: experiments switched on, in EXPERIMENTS order
    experiments: tuple[str, ...] = ()
    #: the API lens shown (all of LENS_NAMES)
    lens: bool = False
    #: explore mode on (the app shows this configuration, not the F12 steps)
    active: bool = False

    # -- small helpers ---------------------------------------------------------
    def _with_config(self, **changes: object) -> Outcome:
        try:
            config = self.config.replace(**changes)
        except MaskattnError as e:
            name = next(iter(changes)) if len(changes) == 1 else "?"
            kept = shown_value(self.config, name) if name in TEXT_FIELDS else ""
            key = "tui.x.err.kept" if kept else "tui.x.err.refused"
            return self, Problem(key, {"field": name, "kept": kept}, inner=e)
        return replace(self, config=config), None

    # -- transitions ------------------------------------------------------------
    def toggle_active(self) -> Outcome:
        return replace(self, active=not self.active), None

    def set_field(self, name: str, text: str) -> Outcome:
        """Set a configuration field from typed text (or a switch / select
        value). Out of range or not a value of its kind: (self, problem)."""
        if name == PRESET:
            return self.preset(str(text))
        if name not in TEXT_FIELDS:
            return self, Problem("tui.x.err.unknown_field", {"field": name})
        try:
            value = text if isinstance(text, bool) else _parse(name, str(text))
        except _ParseError as e:
            problem = e.problem
            return self, replace(problem, params={**problem.params, "kept": shown_value(self.config, name)})
        if name in CHOICES and value not in CHOICES[name]:
            return self, Problem("tui.x.err.choice", {
                "field": name, "value": _echo(str(value)), "choices": ", ".join(CHOICES[name]),
                "kept": shown_value(self.config, name)})
        if name in ("past", "new"):
            return self._resize(name, value)  # type: ignore[arg-type]
        return self._with_config(**{name: value})

    def _resize(self, name: str, value: int) -> Outcome:
        """past / new change the number of positions: overrides that no
        longer fit are dropped (they were about positions that are gone)."""
        past = value if name == "past" else self.config.past
        new = value if name == "new" else self.config.new
        changes: dict[str, object] = {name: value}
        if isinstance(past, int) and isinstance(new, int) and not isinstance(value, bool):
            length = past + new
            changes["v_override"] = tuple((k, x) for k, x in self.config.v_override if k < length)
            changes["score_override"] = tuple(
                (r, k, x) for r, k, x in self.config.score_override if r < new and k < length
            )
        outcome, problem = self._with_config(**changes)
        if problem is not None:
            return self, replace(problem, params={**problem.params, "field": name,
                                                  "kept": shown_value(self.config, name)},
                                 key="tui.x.err.kept")
        return outcome, None

    def preset(self, name: str) -> Outcome:
        """A configuration named after the models that use its pattern
        (explore.patterns.PRESETS): overrides and explicit inputs go, the
        seed, temperature and empty-row policy stay."""
        if name not in PRESETS:
            return self, Problem("tui.x.err.choice", {
                "field": PRESET, "value": name, "choices": ", ".join(PRESETS), "kept": ""})
        return self._with_config(**preset_changes(name))

    def toggle_experiment(self, name: str) -> Outcome:
        if name not in EXPERIMENTS:
            return self, Problem("tui.x.err.unknown_experiment", {"value": name, "choices": ", ".join(EXPERIMENTS)})
        on = set(self.experiments) ^ {name}
        return replace(self, experiments=tuple(n for n in EXPERIMENTS if n in on)), None

    def set_experiment(self, name: str, on: bool) -> Outcome:
        if (name in self.experiments) == bool(on):
            return self, None
        return self.toggle_experiment(name)

    def toggle_lens(self) -> Outcome:
        return replace(self, lens=not self.lens), None

    def set_lens(self, on: bool) -> Outcome:
        return replace(self, lens=bool(on)), None

    def set_score(self, row: int, key: int, score: float) -> Outcome:
        return self._with_config(score_override=(*self.config.score_override, (row, key, score)))

    def clear_overrides(self) -> Outcome:
        return self._with_config(v_override=(), score_override=())

    def assign(self, text: str) -> Outcome:
        """`V[k]=x`, `V[a-b]=x`, `V[future]=x` (every key after the first
        new query: the leak probe's positions), `S[row,k]=x` (a scaled score
        of query row `row`), or `clear` (no overrides)."""
        stripped = text.strip()
        if stripped.lower() in ("clear", "reset"):
            return self.clear_overrides()
        match = _ASSIGN.match(stripped)
        if not match:
            return self, Problem("tui.x.err.assign_syntax", {"value": _echo(text)})
        what, index, raw_value = match["what"].lower(), match["index"], match["value"]
        value_text = raw_value.lower()
        if value_text in ("probe", "tell-tale"):
            value = PROBE_VALUE
        else:
            try:
                value = float(raw_value)
            except ValueError:
                return self, Problem("tui.x.err.assign_value", {"value": _echo(raw_value)})
            if not math.isfinite(value):
                return self, Problem("tui.x.err.assign_value", {"value": _echo(raw_value)})
        if what == "v":
            keys = self._v_keys(index)
            if keys is None:
                return self, Problem("tui.x.err.assign_index", {"value": _echo(index), "hi": self.config.length - 1})
            if not keys:
                return self, Problem("tui.x.err.no_future", {})
            hi = self.config.length - 1
            if max(keys) > hi:  # told as the user wrote it, not as v_override's entry
                return self, Problem("tui.x.err.assign_index", {"value": index, "hi": hi})
            return self._with_config(v_override=(*self.config.v_override, *((k, value) for k in keys)))
        parts = [p.strip() for p in index.split(",")]
        if len(parts) != 2 or not all(re.fullmatch(r"\d{1,%d}" % MAX_DIGITS, p) for p in parts):
            return self, Problem("tui.x.err.assign_score_index", {"value": _echo(index)})
        row, key = int(parts[0]), int(parts[1])
        if row >= self.config.new or key >= self.config.length:
            return self, Problem("tui.x.err.assign_score_range", {
                "value": index, "rows": self.config.new - 1, "hi": self.config.length - 1})
        return self.set_score(row, key, value)

    def _v_keys(self, index: str) -> tuple[int, ...] | None:
        """The key positions of V[index]; None when it names none (a range
        is checked against the keys before it is built: V[0-100000000])."""
        index = index.strip().lower()
        if index == "future":
            return self.config.future_keys
        number = r"(\d{1,%d})" % MAX_DIGITS
        m = re.fullmatch(number + r"\s*(?:-|\.\.|–)\s*" + number, index)
        if m:
            lo, hi = int(m[1]), int(m[2])
            if lo > hi or hi >= self.config.length:
                return None
            return tuple(range(lo, hi + 1))
        if re.fullmatch(number, index):
            return (int(index),)
        return None

    def load(self, config: ExploreConfig) -> Outcome:
        """A configuration read from a scenario file (already validated)."""
        return replace(self, config=config, active=True), None


def new_session(config: ExploreConfig | None = None, experiments: tuple[str, ...] = (),
                lens: bool = False) -> ExploreSession:
    """Explore mode on with `config`; or off (on the defaults) without one."""
    on = set(experiments)
    return ExploreSession(
        config=config if config is not None else ExploreConfig(),
        experiments=tuple(n for n in EXPERIMENTS if n in on),
        lens=lens,
        active=config is not None,
    )


__all__ = ["CHOICES", "LENS_NAMES", "TEXT_FIELDS", "ExploreSession", "Outcome", "Problem", "new_session", "shown_value"]
