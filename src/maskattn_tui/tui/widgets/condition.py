"""The step's condition, always visible under the player bar."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from maskattn_tui.i18n import t
from maskattn_tui.model.step_machine import PlayerState
from maskattn_tui.tui.widgets.base import StateView


#: The most lines the condition takes (a longer one is cut).
MAX_LINES = 3


class ConditionLine(StateView):
    COMPONENT_CLASSES = {"condition--label"}
    DEFAULT_CSS = f"""
    ConditionLine {{
        height: auto;
        max-height: {MAX_LINES};
        padding: 0 1;
        background: $boost;
        & > .condition--label {{ text-style: bold; color: $accent; }}
    }}
    """

    def fits(self, lines) -> bool:
        # Lines past MAX_LINES are cut whatever the layout: no pass for them.
        return min(len(lines), MAX_LINES) <= self.content_size.height

    def render_state(self, state: PlayerState) -> RenderableType:
        text = Text()
        text.append(self.tr(t("tui.condition", state.lang)),
                    style=self.get_component_rich_style("condition--label", partial=True))
        text.append(self.tr(self.view_of(state).text("condition", state.lang)))
        return text
