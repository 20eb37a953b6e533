"""Explore mode's experiments and API lens: the Rich renderables of
render.experiments and render.lens for the bound ExploreSession. Shown only
when an experiment or the lens is switched on (the app sets the screen's
`-lab` class); renders, never assigns."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.reactive import reactive

from maskattn_tui.explore.experiments import run_experiment
from maskattn_tui.explore.session import ExploreSession
from maskattn_tui.i18n import t
from maskattn_tui.render.experiments import experiment_view
from maskattn_tui.render.lens import api_lens_view
from maskattn_tui.tui.widgets.base import FigureView


class LabView(FigureView):
    """The switched-on experiments, then the API lens, for the session."""

    session: reactive[ExploreSession | None] = reactive(None, layout=True)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._cache: tuple[tuple, RenderableType] | None = None

    def width_key(self) -> object:
        return self.session

    def frame_extra(self) -> object:
        return self.session  # switching an experiment on or off starts a new frame

    def fits(self, lines) -> bool:
        # Hidden unless something is switched on: then nothing to lay out.
        return super().fits(lines) if self.showing else True

    def _update(self) -> None:
        if self.showing:
            super()._update()
        else:
            self.forget_shown()  # hidden: nothing to draw until a session shows it

    def _watch_session(self) -> None:
        self.forget_shown()  # the session's own reactive repaints it all

    @property
    def showing(self) -> bool:
        s = self.session
        return s is not None and s.active and bool(s.experiments or s.lens)

    def render(self) -> RenderableType:
        session, state = self.session, self.state
        if state is None or not self.showing:
            return ""
        assert session is not None
        key = (session.config, session.experiments, session.lens, state.lang)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._draw(session, state.lang))
        return self._cache[1]

    def _draw(self, session: ExploreSession, lang: str) -> RenderableType:
        palette = self.palette()
        parts: list[RenderableType] = []
        for name in session.experiments:
            if parts:
                parts.append(Text(""))
            parts.append(experiment_view(name, run_experiment(name, session.config), lang, palette))
        if session.lens:
            if parts:
                parts.append(Text(""))
            parts.append(Text(self.tr(t("tui.x.lens_title", lang)), style=palette.style("title")))
            parts.append(api_lens_view(session.config.table(), "all", lang, palette))
        return Group(*parts)
