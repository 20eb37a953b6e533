"""The theme's styles for the figure's meanings (allowed, future, PAD, bars,
mask mode's reasons...): component-class rules, read into a render Palette.

Performance: the classes are declared once, on the Screen that shows the
views (`ThemedScreen`), not on each view. Textual styles every component
class of every node on each stylesheet pass, and the 25 classes on each of
the figure's four views made about 300 style applications before the first
paint (about 20 ms of 0.22 s); on the screen they are 21 per pass. The
screen reads them into a Palette once per theme and glyphs (its views
share it), read again after a style update of the screen.

Meanings without a rule here keep render.palette's DEFAULT_STYLES."""

from __future__ import annotations

from rich.style import Style
from textual.cache import LRUCache
from textual.dom import DOMNode
from textual.screen import Screen

from maskattn_tui.render.palette import Glyphs, Palette

#: meaning -> its rule's declarations (Textual CSS, theme variables).
THEMED: dict[str, str] = {
    "allowed": "background: $success-darken-2; color: $text; text-style: bold;",
    "future": "background: $error-darken-2; color: $text; text-style: bold;",
    "pad": "background: $warning-darken-3; color: $text; text-style: bold;",
    "future+pad": "background: $secondary-darken-2; color: $text; text-style: bold;",
    "focus": "text-style: bold;",
    "selected": "text-style: bold underline; color: $accent;",
    "header": "text-style: bold;",
    "dim": "text-style: dim;",
    "cached": "color: $primary-lighten-2;",
    "new": "text-style: bold;",
    "bar": "color: $success;",
    "bar.blocked": "color: $error;",
    "bar.empty": "color: $foreground-muted;",
    "number": "text-style: bold;",
    "diff": "background: $primary-darken-2; color: $text; text-style: bold;",
    "warning": "color: $error; text-style: bold;",
    "title": "text-style: bold;",
    # mask mode (the doctor in the app)
    "hidden": "background: $panel-lighten-2; color: $text; text-style: bold;",
    "block.full": "background: $success-darken-3; color: $success;",
    "block.partial": "background: $panel; color: $warning;",
    "block.empty": "color: $foreground-muted;",
}


def component_class(meaning: str) -> str:
    """'future+pad' -> 'mask--future-pad', 'bar.blocked' -> 'mask--bar-blocked'."""
    return "mask--" + meaning.replace("+", "-").replace(".", "-")


def themed_css(selector: str) -> str:
    """The rules, nested under `selector` (the host screen's type)."""
    rules = "".join(f"    & > .{component_class(m)} {{ {decl} }}\n" for m, decl in THEMED.items())
    return selector + " {\n" + rules + "}\n"


class ThemedScreen(Screen):
    """A screen that hosts the meanings' component classes for its views,
    and the Palette read from them, per (theme, glyphs)."""

    COMPONENT_CLASSES = {component_class(m) for m in THEMED}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.palettes: LRUCache[tuple[str, Glyphs], Palette] = LRUCache(4)

    def notify_style_update(self) -> None:
        # The component classes' styles are read again after a style update
        # (a theme, or CSS reloaded): the palettes read before are stale.
        super().notify_style_update()
        self.palettes.clear()

    def palette(self, glyphs: Glyphs) -> Palette:
        key = (self.app.theme, glyphs)
        palette = self.palettes.get(key)
        if palette is None:
            styles: dict[str, Style] = {
                m: self.get_component_rich_style(component_class(m), partial=True) for m in THEMED
            }
            palette = Palette(styles=styles, glyphs=glyphs)
            self.palettes.set(key, palette)
        return palette


def themed_palette(node: DOMNode, glyphs: Glyphs) -> Palette:
    """The Palette of `node`'s screen's theme styles (a ThemedScreen: the views are composed only there)."""
    return node.screen.palette(glyphs)
