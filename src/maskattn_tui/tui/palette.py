"""The command palette: the command table's palette entries available in
the present mode (model.commands), and in figure mode one entry per step.
Each entry runs the command as its key would (availability checked again
when it runs: a dialog may be on top by then). PgUp/PgDn typed before the
list has drawn its lines are held until it has (Textual 8.2.8 raised
KeyError: 0 in OptionList._move_page); a second Enter before the palette
has gone does nothing (Textual's own palette dismissed itself twice and
popped the screen under it: ScreenStackError)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider

from maskattn_tui.i18n import LANGS, t
from maskattn_tui.model.commands import COMMANDS, palette_commands
from maskattn_tui.tui.widgets.player import dwell_text


def label(command_id: str, key: str, model) -> tuple[str, str]:
    """The palette's title and help for a command, in the model's language."""
    lang, player = model.lang, model.player
    if command_id == "play":
        return (t("tui.cmd.pause" if player.playing else "tui.cmd.play", lang),
                t("tui.cmd.play_help", lang, seconds=dwell_text(player.dwell)))
    if command_id == "lang":
        other = LANGS[(LANGS.index(lang) + 1) % len(LANGS)]
        return t("tui.cmd.lang", lang, name=t(f"tui.lang_name.{other}", lang)), t("tui.cmd.lang_help", lang)
    if command_id == "explore":
        return (t("tui.x.cmd.explore_off" if model.exploring else "tui.x.cmd.explore_on", lang),
                t("tui.x.cmd.explore_help", lang))
    if command_id == "zoom":
        return t("tui.cmd.zoom", lang), t("tui.cmd.zoom_help", lang)
    return t(key, lang), t(f"tui.key.{command_id}" if command_id == "cells" else f"tui.x.key.{command_id}", lang)


class FigureCommands(Provider):
    def commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = self.app
        model = app.model  # type: ignore[attr-defined]
        out: list[tuple[str, str, Callable[[], object]]] = []
        if not model.exploring:
            for k, view in enumerate(model.views, start=1):
                out.append((t("tui.cmd.goto", model.lang, k=k), view.text("title", model.lang),
                            partial(app.run_command, "goto", k)))  # type: ignore[attr-defined]
        for command in palette_commands(model.mode, getattr(app, "commands", COMMANDS)):
            title, help_text = label(command.id, command.palette or "", model)
            # its key, as the user set it (the settings file's [keys])
            help_text = t("eco.palette.key", model.lang, help=help_text, keys=command.display)
            out.append((title, help_text, partial(app.run_command, command.id)))  # type: ignore[attr-defined]
        return out

    async def discover(self) -> Hits:
        for title, help_text, callback in self.commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self.commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


class SafeCommandPalette(CommandPalette):
    #: Dismissed already (a second dismiss, or a command after it, does nothing).
    _gone = False

    def dismiss(self, result=None):
        # Once only, and only while it is the screen on top.
        if self._gone or self.app.screen is not self:
            from textual.await_complete import AwaitComplete

            async def nothing() -> None:
                return None

            return AwaitComplete(nothing())
        self._gone = True
        return super().dismiss(result)

    def _select_or_command(self, event=None) -> None:
        if self._gone:
            if event is not None:
                event.stop()
            return
        super()._select_or_command(event)

    def _action_command_list(self, action: str) -> None:
        try:
            super()._action_command_list(action)
        except KeyError:
            # The list has options but has not laid out their lines yet.
            self.call_after_refresh(self._retry_command_list, action)

    def _retry_command_list(self, action: str) -> None:
        try:
            super()._action_command_list(action)
        except KeyError:
            pass  # still nothing drawn: the key does nothing, as on an empty list
