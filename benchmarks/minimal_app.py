"""The baseline for benchmarks/run.py: the smallest Textual app that does
what maskattn-tui does on a key press - a Static that shows `k / 5` and
changes on left/right, and a Footer. Run: python benchmarks/minimal_app.py"""

from textual.app import App, ComposeResult
from textual.widgets import Footer, Static


class MinimalApp(App[None]):
    BINDINGS = [("left", "step(-1)", "Prev"), ("right", "step(1)", "Next"), ("q", "quit", "Quit")]

    def __init__(self) -> None:
        super().__init__()
        self.k = 1

    def compose(self) -> ComposeResult:
        yield Static("step 1 / 5", id="step")
        yield Footer()

    def action_step(self, delta: int) -> None:
        self.k = min(5, max(1, self.k + delta))
        self.query_one("#step", Static).update(f"step {self.k} / 5")


if __name__ == "__main__":
    MinimalApp().run()
