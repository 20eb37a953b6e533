"""Explore mode's experiments and API lens: the Rich renderables of
render.experiments and render.lens for the bound model's session. Shown
only when an experiment or the lens is on (the screen's `-lab` class)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.reactive import reactive

from maskattn_tui.i18n import t
from maskattn_tui.model.app_model import AppModel
from maskattn_tui.tui.themed import themed_palette
from maskattn_tui.tui.widgets.base import ModelView


class LabView(ModelView):
    DEFAULT_CSS = "LabView { height: auto; width: auto; }"
    model: reactive[AppModel | None] = reactive(None, repaint=False, layout=False)

    def shown(self, model: AppModel) -> object:
        if model.side_pane != "lab":
            return None
        s = model.session
        return (s.config, s.experiments, s.lens, model.lang)

    def watch_model(self, old: AppModel | None, new: AppModel | None) -> None:
        if new is not None and (old is None or self.shown(old) != self.shown(new)):
            self.refresh(layout=True)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme) -> None:
        self.refresh(layout=True)  # render() reads the new theme's palette

    def get_content_width(self, container, viewport) -> int:
        """As wide as its tables want (the pane scrolls sideways), never
        squeezed to the pane: Rich would cut the outputs' table."""
        from rich.measure import Measurement

        console = self.app.console
        natural = Measurement.get(console, console.options.update_width(1000), self.render()).maximum
        return max(container.width, min(natural, 1000))

    def render(self) -> RenderableType:
        model = self.model
        if model is None or model.side_pane != "lab":
            return ""
        # The experiments and the lens are imported when first shown.
        from maskattn_tui.explore.experiments import run_experiment
        from maskattn_tui.render.experiments import experiment_view
        from maskattn_tui.render.lens import api_lens_view

        palette = themed_palette(self, self.glyphs)
        session, lang = model.session, model.lang
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
