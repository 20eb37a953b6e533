"""The CPU time of starting the app in-process, as the test suite does
(App.run_test at 100x30, until the first screen settles): the figure and
explore mode, interleaved, minimum and median of N runs each.

    python -m compileall -q src && python benchmarks/app_start.py --runs 8
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time


async def start(explore: bool) -> float:
    from maskattn_tui.explore import ExploreConfig
    from maskattn_tui.tui import make_app

    app = make_app(explore=ExploreConfig()) if explore else make_app()
    begin = time.process_time()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
    return time.process_time() - begin


async def main(runs: int) -> None:
    await start(False)  # imports and first-time caches out of the figures
    times: dict[str, list[float]] = {"figure": [], "explore": []}
    for _ in range(runs):
        for name in times:
            times[name].append(await start(name == "explore"))
    for name, values in times.items():
        print(f"{name:8} start: min {min(values):.3f} s, median {statistics.median(values):.3f} s CPU ({runs} runs)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    asyncio.run(main(parser.parse_args().runs))
