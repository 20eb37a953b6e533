"""Command palette entries: jump to step k, language, play/pause, zoom,
explore mode on / off, save and open a scenario file.
Each entry calls an app action, so it goes through the step machine."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from maskattn_tui.i18n import LANGS, t
from maskattn_tui.tui.widgets.player import dwell_text


class FigureCommands(Provider):
    def commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = self.app
        state = app.state  # type: ignore[attr-defined]
        lang = state.lang
        out: list[tuple[str, str, Callable[[], object]]] = []
        for k, view in enumerate(app.views, start=1):  # type: ignore[attr-defined]
            out.append((t("tui.cmd.goto", lang, k=k), view.text("title", lang), partial(app.action_goto, k)))  # type: ignore[attr-defined]
        other = LANGS[(LANGS.index(lang) + 1) % len(LANGS)]
        out.append((
            t("tui.cmd.lang", lang, name=t(f"tui.lang_name.{other}", lang)),
            t("tui.cmd.lang_help", lang),
            app.action_toggle_language,  # type: ignore[attr-defined]
        ))
        out.append((
            t("tui.cmd.pause" if state.playing else "tui.cmd.play", lang),
            t("tui.cmd.play_help", lang, seconds=dwell_text(state.dwell)),
            app.action_toggle_play,  # type: ignore[attr-defined]
        ))
        out.append((t("tui.cmd.zoom", lang), t("tui.cmd.zoom_help", lang), app.action_zoom))  # type: ignore[attr-defined]
        explore = app.explore  # type: ignore[attr-defined]
        out.append((
            t("tui.x.cmd.explore_off" if explore.active else "tui.x.cmd.explore_on", lang),
            t("tui.x.cmd.explore_help", lang),
            app.action_toggle_explore,  # type: ignore[attr-defined]
        ))
        if explore.active:
            out.append((t("tui.x.cmd.save", lang), t("tui.x.key.save", lang), app.action_save_scenario))  # type: ignore[attr-defined]
        out.append((t("tui.x.cmd.open", lang), t("tui.x.key.open", lang), app.action_open_scenario))  # type: ignore[attr-defined]
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
