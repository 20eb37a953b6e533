"""The app's actions, each one transition of the app model (model/
app_model.py) or a scroll: the player's and the screen's (PlayerActions),
explore mode's and the scenario files' (ExploreActions), mixed into
MaskattnApp with the scroll keys' (tui/scroll.py, mask mode's too). Which
are available when is the command table's business."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.model.mask_model import is_mask_path
from maskattn_tui.model.step_machine import PlayerState
from maskattn_tui.render.palette import ASCII
from maskattn_tui.tui.scroll import ScrollActions
from maskattn_tui.tui.widgets.player import dwell_text

if TYPE_CHECKING:
    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.explore.session import ExploreSession, Outcome
    from maskattn_tui.model.app_model import AppModel


class PlayerActions(ScrollActions):
    model: AppModel

    def _player(self, transition: Callable[[PlayerState], PlayerState]) -> None:
        self.model = self.model.with_player(transition)

    def action_prev(self) -> None:
        self._player(PlayerState.prev)

    def action_next(self) -> None:
        self._player(PlayerState.next)

    def action_first(self) -> None:
        self._player(PlayerState.first)

    def action_last(self) -> None:
        self._player(PlayerState.last)

    def action_goto(self, k: int) -> None:
        self._player(lambda s: s.goto(k))

    def action_toggle_play(self) -> None:
        self._player(PlayerState.toggle_play)

    def action_slower(self) -> None:
        self._dwell(PlayerState.slower, "max")

    def action_faster(self) -> None:
        self._dwell(PlayerState.faster, "min")

    def _dwell(self, transition, limit: str) -> None:
        """At its limit the dwell stays, and says so (not a silent key)."""
        if self.model.dwell_at_limit == limit:
            lang = self.model.lang
            self.notify(t(f"tui.notice.dwell_{limit}", lang, seconds=dwell_text(self.model.player.dwell)),
                        title=t("tui.notice.title", lang), markup=False, timeout=3)
            return
        self._player(transition)

    def action_row(self, delta: int) -> None:
        self._player(lambda s: s.move_row(delta))

    def on_grid_view_row_clicked(self, message) -> None:
        self._player(lambda s: s.select_row(message.row))

    def action_toggle_language(self) -> None:
        self._player(PlayerState.toggle_language)

    def action_zoom(self) -> None:
        self.model = self.model.toggle_zoom()

    def action_toggle_cells(self) -> None:
        self.model = self.model.toggle_cells(self.query_one("#grid").compact)

    def action_help(self) -> None:
        from maskattn_tui.tui.help import HelpScreen

        palette_key = self.COMMAND_PALETTE_BINDING.replace("ctrl+", "^")
        # Mask mode is its own screen (its state says so); else the model's mode.
        mode = getattr(getattr(self.screen, "state", None), "mode", None) or self.model.mode
        self.push_screen(HelpScreen(self.model.lang, palette_key, ascii=self.glyphs is ASCII, mode=mode))

    def scrolled(self, pane: str):
        if pane == "side":  # with an experiment or the lens on, their pane is the one to read
            return self.query_one("#lab-pane" if self.model.side_pane == "lab" else "#explain")
        return self.query_one(f"#{pane}")

    def action_scroll_grid(self, dx: int, dy: int) -> None:
        super().action_scroll_grid(dx, dy)
        if dx and self.model.side_pane == "lab":  # the experiments' tables are as wide as the grid
            self.query_one("#lab-pane").scroll_relative(x=dx, animate=False)


class ExploreActions:
    model: AppModel

    def apply_explore(self, transition: Callable[[ExploreSession], Outcome]):  # noqa: F821
        """Run a transition of the explore session; a refusal keeps the
        session and is shown once (the last notice replaces the previous)."""
        self.model = self.model.explore(transition)
        problem = self.model.problem
        if problem is not None:
            # The same refusal twice leaves the model equal (no watcher runs):
            # the panel is told again, so the box shows the kept value.
            panel = self._panel()  # type: ignore[attr-defined]
            if panel is not None:
                panel.problem = problem
            self.clear_notifications()
            self.notify(problem.message(self.model.lang), title=t("tui.x.refused", self.model.lang),
                        severity="warning", markup=False)
        return problem

    def action_toggle_explore(self) -> None:
        self.apply_explore(lambda s: s.toggle_active())

    def action_toggle_experiment(self, name: str) -> None:
        self.apply_explore(lambda s: s.toggle_experiment(name))

    def action_toggle_lens(self) -> None:
        self.apply_explore(lambda s: s.toggle_lens())

    def action_explore_only(self) -> None:
        """1-7 and a in the walkthrough: say where they work instead of nothing."""
        lang = self.model.lang
        self.notify(t("tui.notice.explore_only", lang), title=t("tui.notice.title", lang), markup=False, timeout=4)

    def action_leave_controls(self) -> None:
        self.set_focus(None)

    def on_explore_panel_intent(self, intent) -> None:
        kind, name, value = intent.kind, intent.name, intent.value
        if kind == "field":
            self.apply_explore(lambda s: s.set_field(name, value))
        elif kind == "assign":
            self.apply_explore(lambda s: s.assign(str(value)))
        elif kind == "experiment":
            self.apply_explore(lambda s: s.set_experiment(name, bool(value)))
        elif kind == "lens":
            self.apply_explore(lambda s: s.set_lens(bool(value)))

    def action_save_scenario(self) -> None:
        from maskattn_tui.tui.scenario_dialogs import PathDialog

        config, lang = self.model.session.config, self.model.lang  # explore mode: a session
        self.push_screen(PathDialog("save", lang, self.scenario_path, ascii=self.glyphs is ASCII),
                         lambda path: self._save(config, path))

    def _save(self, config: ExploreConfig, path: str | None, overwrite: bool = False) -> None:
        from maskattn_tui.explore.scenario_file import save_scenario
        from maskattn_tui.tui.scenario_dialogs import ConfirmDialog

        lang = self.model.lang
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
        self.notify(t("tui.x.save.kept", self.model.lang, file=path), markup=False)

    def action_open_scenario(self) -> None:
        from maskattn_tui.tui.scenario_dialogs import PathDialog

        lang = self.model.lang
        # The last path opened (a mask or a scenario), else the scenario's name.
        shown = self.open_path or self.scenario_path  # type: ignore[attr-defined]
        self.push_screen(PathDialog("open", lang, shown, ascii=self.glyphs is ASCII), self._open)

    def _open(self, path: str | None) -> None:
        from maskattn_tui.explore.scenario_file import load_scenario

        lang = self.model.lang
        if not path:
            return
        path = os.path.expanduser(path)
        if is_mask_path(path):
            from maskattn_tui.tui.mask_screen import open_mask_file

            open_mask_file(self, path, lambda: setattr(self, "open_path", path))  # in a thread
            return
        try:
            config = load_scenario(path)
        except MaskattnError as e:
            # The message names the file, the key and the problem; the
            # configuration on screen stays as it was.
            self.notify(e.message(lang), title=t("tui.x.open.failed", lang), severity="error",
                        markup=False, timeout=10)
            return
        self.scenario_path = self.open_path = path
        self.apply_explore(lambda s: s.load(config))
        self.notify(t("tui.x.open.done", lang, file=path), markup=False)
