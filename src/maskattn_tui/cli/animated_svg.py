"""`export --format animated-svg`: one SVG that plays the five steps, each
step's frame drawn by the app (the screen Rich records, as Textual's own
screenshot does), shown for the dwell, then the next, in a loop.

Self-contained: no script, no font from the network (Fira Code if the
reader has it, else the monospace font). The frames share the window, the
line clips and one style sheet; each frame's style classes are renamed
`…-fK-rN` so that they do not collide. A CSS animation per frame switches
its visibility (step-end: no fading); a reader without CSS animations
(rsvg-convert, an image viewer) shows the first frame, the others being
hidden by their base style."""

from __future__ import annotations

import re

#: Rich's export_svg fields, cut apart here and put together below.
PIECES = "\x00".join(["{styles}", "{lines}", "{chrome}", "{backgrounds}", "{matrix}", "{width}", "{height}",
                      "{terminal_width}", "{terminal_height}", "{terminal_x}", "{terminal_y}", "{char_height}",
                      "{line_height}"])
UID = "m"

# xml:space: the cells' no-break spaces kept where a reader would collapse them (rsvg-convert).
_PAGE = """<svg xml:space="preserve" class="rich-terminal" viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">
<!-- maskattn-tui export, format animated-svg: {count} frames, {dwell:g} s each, in a loop -->
<style>
.{uid}-matrix {{ font-family: "Fira Code", "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace;
  font-size: {char_height}px; line-height: {line_height}px; font-variant-east-asian: full-width; }}
.{uid}-title {{ font-size: 18px; font-weight: bold; font-family: arial, sans-serif; }}
rect {{ shape-rendering: crispEdges; }}
.frame {{ visibility: hidden; }}
.frame.f1 {{ visibility: visible; }}
{animation}
{styles}
</style>
<defs>
<clipPath id="{uid}-clip-terminal"><rect x="0" y="0" width="{terminal_width}" height="{terminal_height}"/></clipPath>
{lines}
</defs>
{chrome}
<g transform="translate({terminal_x}, {terminal_y})" clip-path="url(#{uid}-clip-terminal)">
{frames}
</g>
</svg>
"""


def pieces(console, title: str) -> dict[str, str]:
    """A recording console's screen as Rich's SVG pieces (one unique id for
    every frame, so that the line clips are shared)."""
    names = [name.strip("{}") for name in PIECES.split("\x00")]
    return dict(zip(names, console.export_svg(title=title, code_format=PIECES, unique_id=UID).split("\x00")))


def animation(count: int, dwell: float) -> str:
    """One keyframes rule per frame: visible during its share of the loop."""
    total = count * dwell
    rules = []
    for k in range(count):
        start, end = 100 * k / count, 100 * (k + 1) / count
        frames = (f"0% {{ visibility: visible; }} {end:g}% {{ visibility: hidden; }}" if k == 0 else
                  f"0% {{ visibility: hidden; }} {start:g}% {{ visibility: visible; }} "
                  f"{end:g}% {{ visibility: hidden; }}")
        rules.append(f"@keyframes show{k + 1} {{ {frames} }}\n"
                     f".f{k + 1} {{ animation: show{k + 1} {total:g}s step-end infinite; }}")
    return "\n".join(rules)


def _own_classes(text: str, k: int) -> str:
    """This frame's style classes renamed `m-fK-rN` (each frame numbers its styles from r1)."""
    return re.sub(rf"\b{UID}-r(\d+)\b", rf"{UID}-f{k}-r\1", text)


def _compact(text: str) -> str:
    """Rich's markup without what the style sheet says once for all (a
    rectangle's crisp edges) and without indentation."""
    text = text.replace(' shape-rendering="crispEdges"', "")
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def assemble(frames: list[dict[str, str]], dwell: float) -> str:
    """The animated SVG of `frames` (pieces()), each shown `dwell` seconds."""
    first = frames[0]
    styles = "\n".join(_own_classes(frame["styles"], k) for k, frame in enumerate(frames, start=1))
    groups = "\n".join(
        f'<g class="frame f{k}">\n{_compact(_own_classes(frame["backgrounds"], k))}\n'
        f'<g class="{UID}-matrix">\n{_compact(_own_classes(frame["matrix"], k))}\n</g>\n</g>'
        for k, frame in enumerate(frames, start=1))
    return _PAGE.format(uid=UID, count=len(frames), dwell=dwell, animation=animation(len(frames), dwell),
                        styles=styles, lines=_compact(first["lines"]), chrome=_compact(first["chrome"]),
                        frames=groups, **{key: first[key] for key in (
                            "width", "height", "terminal_width", "terminal_height", "terminal_x", "terminal_y",
                            "char_height", "line_height")})
