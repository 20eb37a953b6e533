"""The explanation pane, drawn line by line: the step's title and caption,
then the five sections and the inputs note. It is as tall as with the
longest caption at every step (nothing is laid out again when stepping),
and returns to the caption on every step, row, language or configuration
change (the app scrolls it home)."""

from __future__ import annotations

from textual.geometry import Size

from maskattn_tui.lesson.f12 import Figure
from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.explain import about_lines, caption_lines, section_lines
from maskattn_tui.render.grid_lines import Block, TextBlock
from maskattn_tui.tui.widgets.base import LinesView


class ExplainView(LinesView):
    def __init__(self, figure: Figure, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lesson = figure
        #: The F12 note's sections as last drawn, with what they were drawn for.
        self._sections: tuple[object, list] | None = None

    def figure_key(self, model: AppModel) -> object:
        # Any change of step, row, language or configuration: a new key, so
        # the pane returns to the caption.
        return (model.views, model.player.step, model.player.row, model.lang, self.content_width())

    def build(self, model: AppModel) -> Block:
        palette, width = self.palette(), self.content_width()
        # An explore configuration's inputs are on its figure, not the F12 note.
        key = (model.lang, width, palette, model.exploring)
        if self._sections is None or self._sections[0] != key:
            self._sections = (key, section_lines(self.lesson, model.lang, palette, width, inputs=not model.exploring))
        sections = self._sections[1]
        lang, row = model.lang, model.player.row
        # The caption is about the step's ▶ row: said under the title, with
        # the ● row of the bars when ↑/↓ chose another.
        tallest = max(len(caption_lines(v, lang, palette, width)) + len(about_lines(v, None, lang, palette, width))
                      for v in model.views)
        title, *text = caption_lines(model.view, lang, palette, width)
        caption = [title, *about_lines(model.view, row, lang, palette, width), *text]
        caption += [[] for _ in range(tallest - len(caption))]
        return TextBlock([*caption, *sections])

    def update_figure(self, old: AppModel | None) -> None:
        before = self._figure_key
        super().update_figure(old)
        if self._figure_key != before and self.scroll_y:
            self.scroll_home(animate=False, immediate=True)

    def row_moved(self, old: AppModel, new: AppModel) -> None:
        self.refresh()

    def frame_size(self, model: AppModel) -> Size:
        assert self.figure is not None
        return Size(self.content_width(), self.figure.height)

