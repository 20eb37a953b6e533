"""Make screenshots/stepN-<lang>.svg (and .png when rsvg-convert is on PATH)
of the five F12 steps at 100x30, through the same app factory as the CLI.

    python scripts/screenshots.py [--lang en zh] (both by default) [--out screenshots] [--size 100x30]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

from maskattn_tui.cli.export import svg_screenshot
from maskattn_tui.tui import make_app

ROOT = Path(__file__).resolve().parent.parent


async def shoot(step: int, lang: str, size: tuple[int, int], svg: Path) -> None:
    app = make_app(step=step, lang=lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        svg.write_text(svg_screenshot(app, f"maskattn-tui · step {step}"), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", nargs="+", default=["en", "zh"], choices=["en", "zh"])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--size", default="100x30")
    args = parser.parse_args(argv)
    width, height = (int(n) for n in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    converter = shutil.which("rsvg-convert")
    for lang in args.lang:
        for step in range(1, 6):
            svg = args.out / f"step{step}-{lang}.svg"
            asyncio.run(shoot(step, lang, (width, height), svg))
            made = [svg.name]
            if converter:
                png = svg.with_suffix(".png")
                subprocess.run([converter, "-o", str(png), str(svg)], check=True)
                made.append(png.name)
            print(" ".join(made))
    if not converter:
        print("rsvg-convert not found: SVG only", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
