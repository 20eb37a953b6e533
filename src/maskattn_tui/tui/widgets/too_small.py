"""The notice shown instead of the figure when the terminal is too small."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget

from maskattn_tui.i18n import LANGS, t


class TooSmall(Widget):
    """Both languages at once: the reader may not know which one is set
    (English only in ASCII mode, where CJK cannot be shown)."""

    DEFAULT_CSS = """
    TooSmall {
        width: 100%;
        height: 100%;
        content-align: center middle;
        text-align: center;
        color: $warning;
        background: $background;
    }
    """

    def __init__(self, min_width: int, min_height: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.min_width = min_width
        self.min_height = min_height

    def langs(self) -> tuple[str, ...]:
        glyphs = getattr(self.app, "glyphs", None)
        return ("en",) if glyphs is not None and glyphs.box == "ASCII" else LANGS

    def notice(self, full: bool) -> Text:
        width, height = self.app.size
        langs = self.langs()
        text = Text(justify="center")
        for i, lang in enumerate(langs):
            if i:
                text.append("\n\n" if full else "\n")
            if full:
                text.append(t("tui.too_small.title", lang) + "\n", style="bold")
            text.append(t("tui.too_small.body", lang, w=self.min_width, h=self.min_height, cw=width, ch=height))
        if full:
            text.append("\n\n" + " · ".join(t("tui.too_small.quit", lang) for lang in langs))
        return text

    def render(self) -> RenderableType:
        """The full notice if it fits, else just the two sentences."""
        full = self.notice(full=True)
        lines = full.wrap(self.app.console, max(1, self.content_size.width))
        return full if len(lines) <= self.content_size.height else self.notice(full=False)

    def on_resize(self) -> None:
        self.refresh()
