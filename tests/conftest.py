"""Shared test setup."""

from __future__ import annotations

import inspect

import pytest

#: How long a snapshot waits for the app to settle before the keys are
#: pressed: the start takes several layout passes, each painted at the next
#: tick of Textual's screen timer (1/60 s), then the steps are drawn ahead.
SETTLE_SECONDS = 0.25


@pytest.fixture
def snap_compare(snap_compare):
    """pytest-textual-snapshot's snap_compare, but the screenshot shows the
    settled screen, as a person sees it: its own few pauses can fall
    between two layout passes (a pane's scrollbar appears in the last)."""

    def compare(app, *args, run_before=None, **kwargs):
        async def settle(pilot):
            await pilot.pause(SETTLE_SECONDS)
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
                await pilot.pause(SETTLE_SECONDS)

        return snap_compare(app, *args, run_before=settle, **kwargs)

    return compare
