"""`maskattn-tui export`: one file per step, drawn by the real app.

Frames come from `make_app` (the same factory as the CLI and the tests), run
headless with `App.run_test` at a fixed size, then saved as the SVG Textual
exports or as the screen's plain text. Everything is checked before anything
is written: the size, the folder, every target file; then all frames are
drawn in memory; only then are the files written (each atomically).

No Textual import at the top: `maskattn-tui --help` must stay light."""

from __future__ import annotations

import asyncio
import io
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.safe_write import remove_quietly, write_temp

#: Larger than any real terminal; keeps a typo from allocating a huge screen.
MAX_WIDTH, MAX_HEIGHT = 500, 200


class ExportError(MaskattnError):
    """A bad export request (size, folder, files): one line, exit 2."""

    def message(self, lang: str) -> str:
        return t(f"cli.export.{self.key}", lang, **self.params)


def run(args, lang: str, config, ascii: bool, walkthrough_keys: int) -> int:
    """`export`: `config` the explore configuration (or None), `ascii` the
    glyphs, `walkthrough_keys` the positions the five steps' labels name."""
    from maskattn_tui.cli.config_file import looks
    from maskattn_tui.cli.parser import STEPS

    size = parse_size(args.size)
    explore = None
    if config is not None:  # the explore frame: the app as `maskattn-tui OPTIONS` starts
        from maskattn_tui.cli.explore_options import experiments_from_args, lenses_from_args

        explore = dict(explore=config, experiments=experiments_from_args(args) or (),
                       lens=lenses_from_args(args) is not None)
    from maskattn_tui.cli.labels import labels_from_args

    # The labels name the configuration's positions when there is one (its
    # frame only), else the walkthrough's (every step's frame).
    labels = labels_from_args(args, config.past + config.new if config is not None else walkthrough_keys)
    if args.format == "animated-svg" and explore is not None:  # it plays the walkthrough's five steps
        raise ExportError("animated_explore")
    out = Path(args.out)
    frames = plan(out, lang, args.format, STEPS, explore=explore is not None)
    check_targets(out, frames[:1] if args.format == "animated-svg" else frames, args.force)
    drawn = draw_frames(frames, size, args.format, lang, ascii, explore, labels, dwell=args.dwell, looks=looks(args))
    write_all(out, drawn)  # ExportError (one line) if it cannot
    for path in drawn:
        sys.stdout.write(f"{path}\n")
    return 0


def min_size() -> tuple[int, int]:
    """The app's minimum size (below it the app shows only a notice)."""
    from maskattn_tui.tui.app import MIN_HEIGHT, MIN_WIDTH

    return MIN_WIDTH, MIN_HEIGHT


def parse_size(value: str) -> tuple[int, int]:
    """'100x30' -> (100, 30); a size the app can show whole, or ExportError."""
    match = re.fullmatch(r"\s*(\d{1,6})\s*[xX×]\s*(\d{1,6})\s*", value)
    if match is None:
        raise ExportError("bad_size", value=value)
    width, height = int(match[1]), int(match[2])
    min_w, min_h = min_size()
    if width < min_w or height < min_h:
        raise ExportError("size_too_small", value=value, w=min_w, h=min_h)
    if width > MAX_WIDTH or height > MAX_HEIGHT:
        raise ExportError("size_too_large", value=value, w=MAX_WIDTH, h=MAX_HEIGHT)
    return width, height


@dataclass(frozen=True)
class Frame:
    """One file to write: which app state, and where."""

    name: str  # "step3" or "explore"
    step: int
    path: Path


def plan(out: Path, lang: str, fmt: str, steps: int, explore: bool) -> list[Frame]:
    if fmt == "animated-svg":  # one file: the steps' frames played in turn
        return [Frame(f"step{k}", k, out / f"walkthrough-{lang}.svg") for k in range(1, steps + 1)]
    frames = [Frame(f"step{k}", k, out / f"step{k}-{lang}.{fmt}") for k in range(1, steps + 1)]
    if explore:
        frames.append(Frame("explore", 1, out / f"explore-{lang}.{fmt}"))
    return frames


def check_targets(out: Path, frames: list[Frame], force: bool) -> None:
    """Refuse before writing anything: a missing parent, a folder that is a
    file or cannot be written, a target that exists (a dangling symlink
    too; without --force) or is a folder, a name the system refuses."""
    try:
        _check_targets(out, frames, force)
    except OSError as exc:  # e.g. a name too long for the file system
        raise ExportError("unwritable", path=exc.filename or out, reason=exc.strerror or exc) from None


def _check_targets(out: Path, frames: list[Frame], force: bool) -> None:
    if out.exists():
        if not out.is_dir():
            raise ExportError("not_a_folder", path=out)
        try:  # os.access says yes to root even on a read-only mount: try it
            fd, probe = tempfile.mkstemp(prefix=".maskattn-export-", dir=out)
        except OSError as exc:
            raise ExportError("unwritable", path=out, reason=exc.strerror or exc) from None
        os.close(fd)
        os.unlink(probe)
    else:
        parent = out.parent
        if not parent.is_dir():
            raise ExportError("no_parent", path=out, parent=parent)
        try:  # can the folder be created? (made and removed again)
            os.rmdir(tempfile.mkdtemp(prefix=".maskattn-export-", dir=parent))
        except OSError as exc:
            raise ExportError("unwritable", path=parent, reason=exc.strerror or exc) from None
    for frame in frames:
        if frame.path.is_dir():
            raise ExportError("target_is_folder", path=frame.path)
    existing = [f.path for f in frames if os.path.lexists(f.path)]
    if existing and not force:
        raise ExportError("exists", path=existing[0], count=len(existing))


def screen_console(app, simplify: bool = False):
    """A Rich console that recorded the app's current screen (as Textual's
    export_screenshot records it)."""
    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens,
                                                       simplify=simplify))
    return console


def screen_text(app) -> str:
    """The app's current screen as plain text, one line per terminal row
    (trailing blanks removed): what a person reads on the screen."""
    height = app.size[1]
    lines = screen_console(app).export_text().split("\n")[:height]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def svg_screenshot(app, title: str) -> str:
    """The app's screen as SVG (Textual's export), its text kept as drawn:
    xml:space="preserve" on the root, inherited by every <text>. Without it
    an SVG renderer such as rsvg-convert collapses a run's leading spaces,
    so column headers slid beside their cells and "paused  dwell" read
    "pauseddwell"."""
    svg = app.export_screenshot(title=title)
    return svg.replace("<svg ", '<svg xml:space="preserve" ', 1)


async def settle(pilot) -> None:
    """Let the app finish its first layout and any animation."""
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def _draw(make, size: tuple[int, int], fmt: str, title: str) -> str:
    app = make()
    async with app.run_test(size=size) as pilot:
        if app._timer is not None:  # playing (animated-svg): this frame's step stays while it is drawn
            app._timer.pause()
        await settle(pilot)
        if fmt == "svg":
            return svg_screenshot(app, title)
        if fmt == "animated-svg":  # this frame's pieces (cli.animated_svg puts the frames together)
            from maskattn_tui.cli.animated_svg import pieces

            return pieces(screen_console(app, simplify=True), title)  # type: ignore[return-value]
        return screen_text(app)


def draw_frames(frames: list[Frame], size: tuple[int, int], fmt: str, lang: str, ascii: bool,
                explore: dict | None = None, labels: tuple[str, ...] | None = None, dwell: float = 2.0,
                looks: dict | None = None) -> dict[Path, str]:
    """Every frame's file content, drawn by the real app, in memory.
    `explore`: make_app's keyword arguments for the explore frame (as the
    CLI would start the app with those options). `labels` (--labels): on the
    explore frame when there is one, else on every step's. `animated-svg`:
    the step frames as one file, `dwell` seconds each. `looks`: the settings
    file's theme and command table (tui.bindings.wear)."""
    from maskattn_tui.tui.app import make_app
    from maskattn_tui.tui.bindings import wear

    drawn: dict[Path, str] = {}
    played: list = []  # animated-svg: each step's pieces, in order
    for frame in frames:
        is_explore = frame.name == "explore"

        def make(frame=frame, is_explore=is_explore):
            extra = dict(explore or {}) if is_explore else {}
            shown = labels if is_explore or explore is None else None
            # animated-svg: the player bar as it plays (▶, the dwell), its timer held (_draw)
            app = make_app(step=frame.step, lang=lang, ascii=ascii, labels=shown, **extra,
                           **(dict(play=True, dwell=dwell) if fmt == "animated-svg" else {}))
            wear(app, **(looks or {}))  # the settings file's theme and keys
            return app

        name = "eco.export.walkthrough" if fmt == "animated-svg" else \
            f"cli.export.frame.{'explore' if is_explore else 'step'}"
        title = t("cli.export.svg_title", lang, frame=t(name, lang, k=frame.step))
        drawn[frame.path] = asyncio.run(_draw(make, size, fmt, title))
        if fmt == "animated-svg":
            played.append(drawn.pop(frame.path))
    if played:
        from maskattn_tui.cli.animated_svg import assemble

        drawn[frames[0].path] = assemble(played, dwell)
    return drawn


def write_all(out: Path, drawn: dict[Path, str]) -> None:
    """Write the set so that a failure leaves the old one whole: every file
    to a temporary file beside it first (new files get the umask's mode),
    then the renames. A failure while writing replaces nothing; a failure
    among the renames (rare: they do not allocate) says which were replaced."""
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise ExportError("unwritable", path=exc.filename or out, reason=exc.strerror or exc) from None
    temps: dict[Path, str] = {}
    try:
        for path, content in drawn.items():
            temps[path] = write_temp(path, content)
    except OSError as exc:
        for tmp in temps.values():
            remove_quietly(tmp)
        raise ExportError("unwritable_kept", path=exc.filename or out, reason=exc.strerror or exc) from None
    replaced: list[Path] = []
    for path, tmp in temps.items():
        try:
            os.replace(tmp, path)
        except OSError as exc:
            for left in list(temps.values())[len(replaced):]:
                remove_quietly(left)
            raise ExportError("partly_written", path=path, reason=exc.strerror or exc,
                              written=", ".join(p.name for p in replaced) or "-",
                              kept=", ".join(p.name for p in list(temps)[len(replaced):])) from None
        replaced.append(path)
