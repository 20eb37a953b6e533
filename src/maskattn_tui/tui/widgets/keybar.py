"""The footer: the command table's entries for the mode, in the current
language, the most important kept first when the width is short (`e
explore` and `? help` always fit at 80 columns; help lists every key)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import RenderableType
from rich.text import Text

from maskattn_tui.i18n import t
from maskattn_tui.model.app_model import AppModel
from maskattn_tui.model.commands import COMMANDS, Command, FooterEntry, footer_entries, footer_fit
from maskattn_tui.tui.widgets.base import ModelView


def entry_keys(entry: FooterEntry, ascii: bool, commands: tuple[Command, ...] = COMMANDS) -> str:
    shown = "/".join(entry.keys)
    if ascii and not shown.isascii():
        names = [c.keys.split(",")[0] for c in commands if c.slot == entry.slot]
        return "/".join(names)
    return shown


#: The palette's entry is kept after every command's.
PALETTE_PRIORITY = 99
#: The play slot's label while the player runs: space would pause it.
PAUSE = "tui.short.pause"


def _playing(model) -> bool:
    """Is the walkthrough playing? (Mask mode's footer model has no player.)"""
    player = getattr(model, "player", None)
    return bool(player is not None and player.playing)


class KeyBar(ModelView):
    COMPONENT_CLASSES = {"keybar--key"}
    DEFAULT_CSS = """
    KeyBar {
        height: 1;
        background: $panel;
        color: $foreground;
        & > .keybar--key { text-style: bold; color: $accent; }
    }
    """

    def shown(self, model: AppModel) -> object:
        return (model.mode, model.lang, _playing(model))

    def entries(self, model: AppModel) -> list[tuple[FooterEntry, str, str]]:
        ascii_ = self.glyphs.box == "ASCII"
        # The palette (Textual's ctrl+p, not a command of ours) last of all.
        palette = FooterEntry("palette", ("^p",), "tui.short.palette", PALETTE_PRIORITY)
        playing = _playing(model)
        table = getattr(self.app, "commands", COMMANDS)  # the user's keys (the settings file)
        return [(e, entry_keys(e, ascii_, table),
                 self.tr(t(PAUSE if playing and e.slot == "play" else e.short, model.lang)))
                for e in (*footer_entries(model.mode, table), palette)]

    def render(self) -> RenderableType:
        model = self.model
        if model is None:
            return ""
        key_style = self.get_component_rich_style("keybar--key", partial=True)
        entries = self.entries(model)
        widths = [cell_len(f" {k} {label} ") for _, k, label in entries]
        kept = footer_fit([e for e, _, _ in entries], widths, self.content_size.width)
        text = Text(no_wrap=True, overflow="crop")
        for entry, key, label in entries:
            if entry in kept:
                text.append(" " + key, style=key_style)
                text.append(" " + label + " ")
        return text
