"""The scroll keys' actions, shared by the app (the figure and explore) and
mask mode's screen: the same keys scroll the same panes by the same
amounts in every mode."""

from __future__ import annotations


class ScrollActions:
    """Shift+arrows scroll the grid, [ ] the bars by a page, the side pane's
    page keys (PgUp/PgDn; { } in mask mode) the side pane: the same in every
    mode. Each user names the pane that is scrolled (`scrolled`)."""

    def scrolled(self, pane: str):
        """The widget "grid", "bars" or "side" names now."""
        raise NotImplementedError

    def action_scroll_grid(self, dx: int, dy: int) -> None:
        self.scrolled("grid").scroll_relative(x=dx or None, y=dy or None, animate=False)

    def action_scroll_bars(self, pages: int) -> None:
        bars = self.scrolled("bars")
        bars.scroll_relative(y=pages * max(1, bars.size.height - 1), animate=False)

    def action_scroll_side(self, pages: int) -> None:
        pane = self.scrolled("side")
        if pages < 0:
            pane.scroll_page_up(animate=False)
        else:
            pane.scroll_page_down(animate=False)
