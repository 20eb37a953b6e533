"""The step's condition, always visible under the player bar. Its height
is the tallest step's at this width (so the panes below never move when
stepping); relations are glued to their numbers ("≤ 3", "T = 1")."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from maskattn_tui.i18n import t
from maskattn_tui.model.app_model import AppModel
from maskattn_tui.render.grid_lines import glue
from maskattn_tui.render.wrap import break_offsets
from maskattn_tui.tui.widgets.base import ModelView

#: The most lines the condition takes (a longer one is cut).
MAX_LINES = 3


def condition_text(model: AppModel, view, tr) -> tuple[str, str]:
    lang = model.lang
    return tr(t("tui.condition", lang)), tr(glue(view.text("condition", lang)))


def condition_lines(model: AppModel, width: int, tr) -> int:
    """The tallest condition of the walkthrough at `width` (arithmetic)."""
    most = 1
    for view in model.views:
        label, body = condition_text(model, view, tr)
        most = max(most, 1 + len(break_offsets(label + body, max(1, width))))
    return min(MAX_LINES, most)


class ConditionLine(ModelView):
    COMPONENT_CLASSES = {"condition--label"}
    DEFAULT_CSS = """
    ConditionLine {
        height: 1;
        padding: 0 1;
        background: $boost;
        & > .condition--label { text-style: bold; color: $accent; }
    }
    """

    def shown(self, model: AppModel) -> object:
        return (model.views, model.player.step, model.lang)

    def render(self) -> RenderableType:
        model = self.model
        if model is None:
            return ""
        label, body = condition_text(model, model.view, self.tr)
        style = self.get_component_rich_style("condition--label", partial=True)
        text = Text(label + body)
        text.stylize(style, 0, len(label))
        # Broken where the glued text may break; drawn with plain spaces.
        offsets = break_offsets(text.plain, max(1, self.content_size.width))
        text = Text(text.plain.replace("\u00a0", " "), spans=text.spans)
        lines = text.divide(offsets) if offsets else [text]
        for line in lines:
            line.rstrip()
        return Text("\n").join(lines)
