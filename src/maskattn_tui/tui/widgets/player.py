"""The player bar (the header): title, `k / n`, play state and dwell."""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import RenderableType
from rich.text import Text

from maskattn_tui.i18n import pick, t
from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.wrap import cut_at_word
from maskattn_tui.tui.widgets.base import ModelView

PAUSED_MARK = "||"


def dwell_text(seconds: float) -> str:
    return f"{seconds:g}"


def shortest_fit(title: str, short: str, room: int) -> str:
    """`title`, or where it does not fit `short` if that fits whole (a
    whole short title rather than "A mask is a visibility table, not
    extra…" or "Explore…")."""
    return short if cell_len(title) > room and cell_len(short) <= room else title


class PlayerBar(ModelView):
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

    def __init__(self, heading: dict[str, str], *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.heading = heading

    def shown(self, model: AppModel) -> object:
        p = model.player
        return (p.step, p.steps, p.playing, p.dwell, p.lang, model.zoomed, model.view)

    @staticmethod
    def explored(model: AppModel) -> bool:
        """One explored configuration on screen (explore mode, or a single explore step)."""
        return model.view.spec.kind == "explore"

    def status(self, model: AppModel, short: bool = False) -> Text:
        """`short`: the notes without their key hints (the zoomed grid's pane
        rule and the footer name z and e), for a title that would not fit."""
        state, lang = model.player, model.lang
        style = self.get_component_rich_style
        text = Text()
        if model.zoomed:
            note = t("tui.zoomed_short" if short else "tui.zoomed", lang)
            text.append(self.tr(note) + "  ", style=style("player--paused", partial=True))
        if self.explored(model):
            mode = t("tui.x.mode_short" if short else "tui.x.mode", lang)
            text.append(self.tr(mode) + " ", style=style("player--step", partial=True))
            return text
        text.append(t("tui.step", lang, k=state.step, n=state.steps), style=style("player--step", partial=True))
        text.append("  ")
        if state.playing:
            text.append(f"{self.glyphs.arrow} {t('tui.playing', lang)}", style=style("player--playing", partial=True))
        else:
            text.append(f"{PAUSED_MARK} {t('tui.paused', lang)}", style=style("player--paused", partial=True))
        text.append("  " + t("tui.dwell", lang, seconds=dwell_text(state.dwell)) + " ")
        return text

    def render(self) -> RenderableType:
        model = self.model
        if model is None:
            return ""
        explored = self.explored(model) and model.view.spec.title
        full = self.tr(pick(model.view.spec.title if explored else self.heading, model.lang))
        # the short form: the figure's short title; a configuration without its "Explore:" word
        short = re.split(r": |：", full, maxsplit=1)[-1] if explored else self.tr(t("render.title_short", model.lang))
        status = self.status(model)
        room = max(0, self.content_size.width - status.cell_len - 2)
        if cell_len(short) > room:  # not even the short title: the status' short notes
            status = self.status(model, short=True)
            room = max(0, self.content_size.width - status.cell_len - 2)
        title = cut_at_word(shortest_fit(full, short, room), room, self.tr("…"))
        line = Text(" " + title, style=self.get_component_rich_style("player--title", partial=True))
        line.truncate(room + 1, pad=True)
        line.append(" ")
        line.append_text(status)
        line.no_wrap = True
        return line
