"""Explore mode's side panel: one control per configuration field, the
V / score box, and the experiment and lens toggles.

It shows the bound ExploreSession and never changes it: what a person types,
picks or ticks goes up as one `Intent` message; the app runs the matching
transition of explore.session and binds the result (and the refusal, if
any) back. Every control is a focus stop: Tab / shift+Tab walk through them,
Esc hands the keys back to the figure."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Grid, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Checkbox, Input, Label, Select, Static
from textual.widgets.input import Selection

from maskattn_tui.explore.experiments import EXPERIMENTS
from maskattn_tui.explore.fields import PANEL_FIELDS, shown_range
from maskattn_tui.explore.patterns import PRESETS, matching_preset
from maskattn_tui.explore.session import PRESET, ExploreSession, Problem, shown_value
from maskattn_tui.i18n import t
from maskattn_tui.render.palette import UNICODE, Glyphs, Palette
from maskattn_tui.model.step_machine import PlayerState
from maskattn_tui.tui.bindings import EXPLORE_BINDINGS, by_id, key_text
from maskattn_tui.tui.widgets.panes import use_ascii_scrollbars

#: Controls, top to bottom, from the one schema (explore.fields): a text box
#: for numbers and lists (checked by explore.session, not by Input's own
#: `type=`, whose restrict regex backtracks exponentially on long input),
#: a select for choices, a tick for switches.
TEXT_BOXES = tuple(f.name for f in PANEL_FIELDS if f.control == "input")
SELECTS = tuple((f.name, f.choices) for f in PANEL_FIELDS if f.control == "select")
ORDER = tuple(f.name for f in PANEL_FIELDS)
#: The first pattern field: the "patterns" heading goes above it.
FIRST_PATTERN = "window"
#: Experiment name -> its binding id (for the key shown beside it, when it has one).
EXPERIMENT_KEYS = {name: "x." + name.replace("-", "_") for name in EXPERIMENTS}
_BOUND = {b.id for b in EXPLORE_BINDINGS}
#: Before the focused tick (one cell, like the half block it replaces).
FOCUS_MARK = "▸"


class Tick(Checkbox):
    """A checkbox whose mark is written, not only coloured: X when on, a
    blank when off (Textual's draws X either way, in another colour)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 - Textual's name
        return "X" if self.value else " "

    # In ASCII mode the half blocks around the mark become brackets: [X].
    @property
    def _ascii(self) -> bool:
        glyphs = getattr(self.app, "glyphs", None)
        return glyphs is not None and glyphs.box == "ASCII"

    @property
    def BUTTON_LEFT(self) -> str:  # type: ignore[override]  # noqa: N802
        # Focused: a pointer, not only a shade (Textual's label style loses
        # its reverse when drawn), so it shows under NO_COLOR too.
        if self.has_focus:
            return ">" if self._ascii else FOCUS_MARK
        return "[" if self._ascii else Checkbox.BUTTON_LEFT

    @property
    def BUTTON_RIGHT(self) -> str:  # type: ignore[override]  # noqa: N802
        return "]" if self._ascii else Checkbox.BUTTON_RIGHT


def _id(name: str) -> str:
    return "x-" + name.replace("_", "-")


def _runs(fields) -> list[list]:
    """The fields as the panel lays them out: a tick alone; labelled boxes
    in runs, each one grid, broken at a tick and where the patterns start."""
    runs: list[list] = []
    for f in fields:
        if f.control == "tick" or f.name == FIRST_PATTERN or not runs or runs[-1][-1].control == "tick":
            runs.append([f])
        else:
            runs[-1].append(f)
    return runs


class ExplorePanel(VerticalScroll, can_focus=False):
    """The controls; `Intent(kind, name, value)` says what the person asked."""

    COMPONENT_CLASSES = {"panel--heading", "panel--problem", "panel--note"}
    DEFAULT_CSS = """
    ExplorePanel {
        width: 26;
        height: 1fr;
        padding: 0 1;
        border-right: vkey $primary;
        scrollbar-size-vertical: 1;
        & > .panel--heading { text-style: bold; color: $accent; }
        & > .panel--problem { text-style: bold; color: $error; }
        & > .panel--note { color: $foreground-muted; }
        /* A run of fields is one grid, label and box side by side: a row
           container per field would be 14 more widgets to style and lay
           out at every start (94 widgets on the screen, now 80). */
        & Grid { grid-size: 2; grid-columns: 12 1fr; grid-rows: 1; height: auto; width: 100%; }
        & Label { width: 12; height: 1; color: $foreground; }
        & Input { width: 1fr; }
        & Select { width: 1fr; }
        & Checkbox { width: 100%; }
        & .x-heading { height: auto; width: 100%; margin-top: 1; }
        & #x-heading { margin-top: 0; }
        & #x-assign { width: 100%; }
        & #x-preset { width: 100%; }
        & #x-preset-label { width: 100%; color: $accent; }
        & #x-overrides, & #x-problem { height: auto; width: 100%; }
        & #x-problem { margin-top: 0; }
        /* The focused control is marked by reverse video, not only a
           shade: visible under 16 colours and NO_COLOR too. */
        & Select:focus > SelectCurrent { text-style: reverse bold; }
        & Input:focus { text-style: bold underline; }
    }
    ExplorePanel.-ascii { border-right: ascii $primary; }
    """

    class Intent(Message):
        """kind: "field" (name, text or bool), "assign" (text), "experiment"
        (name, bool), "lens" (bool)."""

        def __init__(self, kind: str, name: str, value: object) -> None:
            super().__init__()
            self.kind = kind
            self.name = name
            self.value = value

    state: reactive[PlayerState | None] = reactive(None)
    session: reactive[ExploreSession | None] = reactive(None)
    #: The last refusal (None after a change that went through); re-sent
    #: after every intent so that a refused text box shows the kept value.
    problem: reactive[Problem | None] = reactive(None, always_update=True)

    def __init__(self, glyphs: Glyphs = UNICODE, **kwargs) -> None:
        super().__init__(**kwargs)
        self.glyphs = glyphs
        self._lang: str | None = None

    def tr(self, text: str) -> str:
        return Palette(glyphs=self.glyphs).tr(text)

    # -- layout --------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="x-heading", classes="x-heading")
        yield Label(id="x-preset-label")
        yield Select([(name, name) for name in PRESETS], id="x-preset", compact=True, allow_blank=True)
        choices = dict(SELECTS)
        for run in _runs(PANEL_FIELDS):
            if run[0].name == FIRST_PATTERN:
                yield Static(id="x-patterns-heading", classes="x-heading")
            if run[0].control == "tick":
                yield Tick(id=_id(run[0].name), compact=True, value=bool(run[0].default))
                continue
            with Grid():
                for f in run:
                    yield Label(id=_id(f.name) + "-label")
                    if f.control == "input":
                        # "-valid" from the start: an Input without validators adds
                        # it on its first value, which restyles it once more.
                        yield Input(id=_id(f.name), compact=True, select_on_focus=True, classes="-valid")
                    else:
                        yield Select([(c, c) for c in choices[f.name]], id=_id(f.name), compact=True,
                                     allow_blank=False)
        # A refusal shows here, under the fields it is about.
        yield Static(id="x-problem")
        yield Static(id="x-assign-heading", classes="x-heading")
        yield Input(id="x-assign", compact=True, placeholder="V[4]=9999", classes="-valid")
        yield Static(id="x-overrides")
        yield Static(id="x-experiments-heading", classes="x-heading")
        for name in EXPERIMENTS:
            yield Tick(id=_id(name), compact=True)
        yield Tick(id="x-lens", compact=True)

    def on_mount(self) -> None:
        self.sync()
        if self.glyphs.box == "ASCII":
            self.add_class("-ascii")  # the border (DEFAULT_CSS)
            use_ascii_scrollbars(self)
            self.call_after_refresh(self._ascii_arrows)

    def _ascii_arrows(self) -> None:
        """Textual's Select draws its arrows as ▼/▲: spell them v/^."""
        for arrow, text in ((".down-arrow", "v"), (".up-arrow", "^")):
            for static in self.query(f"Select {arrow}").results(Static):
                static.update(text)

    # -- showing the bound values ---------------------------------------------
    def watch_state(self) -> None:
        # Hidden outside explore mode: entering it changes the session,
        # whose watcher syncs (language included); a step need not relayout.
        if self.is_mounted and self.session is not None and self.session.active:
            self.sync()

    def watch_session(self) -> None:
        if self.is_mounted:
            self.sync()

    def watch_problem(self) -> None:
        if self.is_mounted:
            self.sync()

    def sync(self) -> None:
        """Show the session, the problem and the labels in the language."""
        state, session = self.state, self.session
        if state is None or session is None:
            return
        lang = state.lang
        if lang != self._lang:
            self._label(lang)
            self._lang = lang
        config = session.config
        with self.prevent(Input.Changed, Select.Changed, Checkbox.Changed):
            for name in TEXT_BOXES:
                box = self.query_one(f"#{_id(name)}", Input)
                text = shown_value(config, name)
                if box.value != text:
                    box.value = text
            preset = self.query_one("#x-preset", Select)
            matched = matching_preset(config)
            wanted = Select.NULL if matched is None else matched
            if preset.value != wanted:
                preset.value = wanted
            for name, _ in SELECTS:
                select = self.query_one(f"#{_id(name)}", Select)
                if select.value != getattr(config, name):
                    select.value = getattr(config, name)
            for f in PANEL_FIELDS:
                if f.control == "tick":
                    self.query_one(f"#{_id(f.name)}", Checkbox).value = bool(getattr(config, f.name))
            for name in EXPERIMENTS:
                self.query_one(f"#{_id(name)}", Checkbox).value = name in session.experiments
            self.query_one("#x-lens", Checkbox).value = session.lens
        self._overrides(session, lang)
        # A placeholder that is valid here: the last key always exists.
        self.query_one("#x-assign", Input).placeholder = f"V[{config.length - 1}]=9999"
        problem = self.problem
        self._select_refused(problem)
        note = self.query_one("#x-problem", Static)
        note.display = problem is not None
        if problem is None:
            note.update("")
        else:
            text = Text("! ", style=self.get_component_rich_style("panel--problem", partial=True))
            text.append(self.tr(problem.message(lang)),
                        style=self.get_component_rich_style("panel--problem", partial=True))
            note.update(text)
            self.call_after_refresh(note.scroll_visible, animate=False)

    def _label(self, lang: str) -> None:
        heading = self.get_component_rich_style("panel--heading", partial=True)
        note = self.get_component_rich_style("panel--note", partial=True)
        title = Text(self.tr(t("tui.x.panel.title", lang)), style=heading)
        title.append("\n" + self.tr(t("tui.x.panel.hint", lang)), style=note)
        self.query_one("#x-heading", Static).update(title)
        for f in PANEL_FIELDS:
            if f.control == "tick":
                self.query_one(f"#{_id(f.name)}", Checkbox).label = self.tr(t(f.label_key, lang))
                continue
            label = self.tr(t(f.label_key, lang, range=shown_range(f)))
            self.query_one(f"#{_id(f.name)}-label", Label).update(label)
        self.query_one("#x-preset-label", Label).update(self.tr(t("tui.x.field.preset", lang)))
        preset = self.query_one("#x-preset", Select)
        with self.prevent(Select.Changed):
            preset.set_options([(self.tr(t(f"explore.preset.{name}", lang)), name) for name in PRESETS])
        preset.prompt = self.tr(t("tui.x.panel.preset_prompt", lang))
        self.query_one("#x-patterns-heading", Static).update(
            Text(self.tr(t("tui.x.panel.patterns", lang)), style=heading))
        self.query_one("#x-assign-heading", Static).update(
            Text(self.tr(t("tui.x.panel.assign", lang)), style=heading))
        self.query_one("#x-experiments-heading", Static).update(
            Text(self.tr(t("tui.x.panel.experiments", lang)), style=heading))
        ascii = self.glyphs.box == "ASCII"
        table = getattr(self.app, "commands", None)  # the user's keys (the settings file)
        for name in EXPERIMENTS:
            label = self.tr(t(f"tui.x.experiment.{name}", lang))
            if EXPERIMENT_KEYS[name] in _BOUND:  # every experiment has a key (1-7)
                label = f"{key_text(by_id(EXPERIMENT_KEYS[name], table), ascii)} {label}"
            else:
                label = f"  {label}"  # aligned with the keyed ones
            self.query_one(f"#{_id(name)}", Checkbox).label = label
        self.query_one("#x-lens", Checkbox).label = (
            f"{key_text(by_id('x.lens', table), ascii)} {self.tr(t('tui.x.field.lens', lang))}")

    def _select_refused(self, problem: Problem | None) -> None:
        """A refused text box shows the kept value selected, the cursor at
        its end: typing replaces it, the arrow keys keep it."""
        if problem is None:
            return
        name = problem.params.get("field")
        if name not in TEXT_BOXES:
            return
        box = self.query_one(f"#{_id(name)}", Input)
        box.selection = Selection(0, len(box.value))

    def _overrides(self, session: ExploreSession, lang: str) -> None:
        config = session.config
        parts = [f"V[{k}]={v:g}" for k, v in config.v_override]
        parts += [f"S[{r},{k}]={s:g}" for r, k, s in config.score_override]
        note = self.get_component_rich_style("panel--note", partial=True)
        if parts:
            text = Text(self.tr(t("tui.x.panel.overrides", lang, list=", ".join(parts))), style=note)
        else:
            text = Text(self.tr(t("tui.x.panel.no_overrides", lang)), style=note)
        self.query_one("#x-overrides", Static).update(text)

    # -- what the person asks for: up to the app as an Intent --------------------
    def _field_of(self, widget_id: str | None) -> str | None:
        if not widget_id or not widget_id.startswith("x-"):
            return None
        return widget_id[2:].replace("-", "_")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._text_intent(event.input, event.value, submitted=True)

    @on(Input.Blurred)
    def _blurred(self, event: Input.Blurred) -> None:
        event.stop()
        self._text_intent(event.input, event.value, submitted=False)

    def _text_intent(self, box: Input, value: str, submitted: bool) -> None:
        name = self._field_of(box.id)
        if name is None:
            return
        if name == "assign":
            if value.strip():
                self.post_message(self.Intent("assign", name, value))
                if submitted:
                    with self.prevent(Input.Changed):
                        box.value = ""
            return
        session = self.session
        if session is not None and not submitted and value == shown_value(session.config, name):
            return  # left unchanged
        self.post_message(self.Intent("field", name, value))

    @on(Select.Changed)
    def _selected(self, event: Select.Changed) -> None:
        event.stop()
        name = self._field_of(event.select.id)
        # A Select posts Changed for its first option when it mounts; by the
        # time that arrives, sync() has shown the session's value: stale.
        if event.value != event.select.value:
            return
        if name is not None and isinstance(event.value, str):
            # A preset goes up as the pseudo-field "preset" (ExploreSession.set_field
            # runs the preset transition), so the app's Intent routing is unchanged.
            self.post_message(self.Intent("field", PRESET if name == "preset" else name, event.value))

    @on(Checkbox.Changed)
    def _ticked(self, event: Checkbox.Changed) -> None:
        event.stop()
        name = self._field_of(event.checkbox.id)
        if name is None:
            return
        if name in ORDER:
            self.post_message(self.Intent("field", name, event.value))
        elif name == "lens":
            self.post_message(self.Intent("lens", name, event.value))
        else:
            self.post_message(self.Intent("experiment", name.replace("_", "-"), event.value))
