"""The baselines for benchmarks/run.py: the smallest Textual apps that do
what maskattn-tui does on a key press. Run: python benchmarks/minimal_app.py [--body]

- default: a Static that shows `step k / 5` and changes on left/right, and
  a Footer. A step repaints those ten cells (about 150 bytes): the floor of
  any Textual app, but not a screen's worth of content.
- --body: the same, but the Static fills the screen with a body of text
  (a styled label and words on every line) that a step replaces, the way
  an app that redraws its whole view per step does. A step repaints the
  body (about 30 rows): a fair reference for an app whose steps change a
  figure, bars and a caption.
- --grid: a Header, a 12 x 12 grid in a Static (a glyph and a colour per
  cell) and a Footer: the reference for the app's first stable paint."""

import sys

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Static

WORDS = "mask query key value softmax causal padding position cache weight row column".split()


def body(k: int, rows: int = 40, width: int = 98) -> Text:
    """`rows` lines of about `width` cells, different for every step k."""
    text = Text()
    for i in range(rows):
        text.append(f"step {k} / 5 · {i:2d} ", style="bold")
        line = " ".join(WORDS[(i * 7 + k * 3 + j) % len(WORDS)] for j in range(14))
        text.append(line[: width - 14], style="green" if (i + k) % 2 else "")
        text.append("\n")
    return text


def grid(k: int, n: int = 12) -> Text:
    """A 12 x 12 visibility grid (--grid): a glyph and a colour per cell."""
    text = Text()
    for r in range(n):
        text.append(f"q{r:<3}", style="bold")
        for c in range(n):
            ok = c <= r + k - 1
            text.append(" ✓ " if ok else " F ", style="black on green" if ok else "white on red")
        text.append("\n")
    return text


class MinimalApp(App[None]):
    BINDINGS = [("left", "step(-1)", "Prev"), ("right", "step(1)", "Next"), ("q", "quit", "Quit")]
    CSS = "#step.body { height: 1fr; overflow: hidden; }"  # --body only

    def __init__(self, full_body: bool = False) -> None:
        super().__init__()
        self.k = 1
        self.full_body = full_body

    def content(self) -> Text | str:
        if self.full_body == "grid":
            return grid(self.k)
        return body(self.k) if self.full_body else f"step {self.k} / 5"

    def compose(self) -> ComposeResult:
        if self.full_body == "grid":
            yield Header()
        yield Static(self.content(), id="step", classes="body" if self.full_body is True else "")
        yield Footer()

    def action_step(self, delta: int) -> None:
        self.k = min(5, max(1, self.k + delta))
        self.query_one("#step", Static).update(self.content())


if __name__ == "__main__":
    MinimalApp(full_body="grid" if "--grid" in sys.argv[1:] else "--body" in sys.argv[1:]).run()
