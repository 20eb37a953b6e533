"""The footer: the figure's bindings, in the current language (derived from
FIGURE_BINDINGS and FOOTER_GROUPS, never a hand-written list)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import RenderableType
from rich.text import Text

from maskattn_tui.i18n import t
from maskattn_tui.tui.bindings import by_id, footer_groups, key_text
from maskattn_tui.tui.widgets.base import StateView


class KeyBar(StateView):
    COMPONENT_CLASSES = {"keybar--key"}
    DEFAULT_CSS = """
    KeyBar {
        height: 1;
        background: $panel;
        color: $foreground;
        & > .keybar--key { text-style: bold; color: $accent; }
    }
    """

    def entries(self, lang: str, groups=None) -> list[tuple[str, str]]:
        if groups is None:
            groups, _ = footer_groups(self.explore)
        entries = [
            ("/".join(key_text(by_id(i), ascii=self.glyphs.box == "ASCII") for i in ids), self.tr(t(label, lang))) for ids, label in groups
        ]
        entries.append(("^p", t("tui.short.palette", lang)))
        return entries

    @property
    def explore(self) -> bool:
        """Explore mode: the shown step is an explored configuration."""
        return bool(self.views) and self.view.spec.kind == "explore"

    def fits(self, lines) -> bool:
        return True  # one line, whatever the state: repaint only

    def render(self) -> RenderableType:
        if self.state is None:
            return ""
        key_style = self.get_component_rich_style("keybar--key", partial=True)
        groups, priority = footer_groups(self.explore)
        entries = self.entries(self.state.lang, groups)
        # Keep the most important entries that fit, in their usual order.
        room = self.content_size.width
        shown: set[int] = set()
        for index in priority:
            key, label = entries[index]
            need = cell_len(f" {key} {label} ")
            if need <= room:
                shown.add(index)
                room -= need
        text = Text(no_wrap=True, overflow="ellipsis")
        for index, (key, label) in enumerate(entries):
            if index in shown:
                text.append(" " + key, style=key_style)
                text.append(" " + label + " ")
        return text
