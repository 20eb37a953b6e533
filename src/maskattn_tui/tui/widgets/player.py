"""The player bar (the header): title, `k / n`, play state and dwell."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.reactive import reactive

from maskattn_tui.i18n import pick, t
from maskattn_tui.tui.widgets.base import StateView

PAUSED_MARK = "||"


def dwell_text(seconds: float) -> str:
    return f"{seconds:g}"


class PlayerBar(StateView):
    COMPONENT_CLASSES = {"player--title", "player--step", "player--playing", "player--paused"}
    DEFAULT_CSS = """
    PlayerBar {
        height: 1;
        background: $panel;
        color: $foreground;
        & > .player--title { text-style: bold; }
        & > .player--step { text-style: bold; color: $accent; }
        & > .player--playing { text-style: bold; color: $success; }
        & > .player--paused { color: $foreground-muted; }
    }
    """

    #: View-only: whether the figure is enlarged (shown as a hint).
    zoomed: reactive[bool] = reactive(False)

    def __init__(self, heading: dict[str, str], *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.heading = heading

    @property
    def explore(self) -> bool:
        return bool(self.views) and self.view.spec.kind == "explore"

    def status(self) -> Text:
        state = self.state
        assert state is not None
        lang = state.lang
        style = self.get_component_rich_style
        text = Text()
        if self.zoomed:
            text.append(self.tr(t("tui.zoomed", lang)) + "  ", style=style("player--paused", partial=True))
        if self.explore:
            # One configuration, nothing to play: say which mode this is.
            text.append(self.tr(t("tui.x.mode", lang)) + " ", style=style("player--step", partial=True))
            return text
        text.append(t("tui.step", lang, k=state.step, n=state.steps), style=style("player--step", partial=True))
        text.append("  ")
        if state.playing:
            text.append(f"{self.glyphs.arrow} {t('tui.playing', lang)}", style=style("player--playing", partial=True))
        else:
            text.append(f"{PAUSED_MARK} {t('tui.paused', lang)}", style=style("player--paused", partial=True))
        text.append("  " + t("tui.dwell", lang, seconds=dwell_text(state.dwell)) + " ")
        return text

    def fits(self, lines) -> bool:
        return True  # one line, whatever the state: repaint only

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        status = self.status()
        room = max(0, self.content_size.width - status.cell_len - 1)
        line = Text()
        heading = self.view.spec.title if self.explore and self.view.spec.title else self.heading
        line.append(" " + self.tr(pick(heading, self.state.lang)),
                    style=self.get_component_rich_style("player--title", partial=True))
        ellipsis = self.tr("…")
        if line.cell_len > room:
            line.truncate(max(0, room - len(ellipsis)), overflow="crop")
            line.append(ellipsis)
        line.truncate(room, pad=True)
        line.append(" ")
        line.append_text(status)
        line.no_wrap = True
        return line
