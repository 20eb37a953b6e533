"""Command line: the TUI by default; `print`, `json`, `check` (and `export`)
as non-interactive outputs. Only argparse and the pure engine are imported
at the top, so --help, print, json and check never load Textual."""

from __future__ import annotations

import argparse
import os
import sys

from maskattn_tui import __version__
from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import LANGS, lang_from_env, t

STEPS = 5
EXIT_USAGE = 2


class UsageError(Exception):
    """A bad command line: one line on stderr, exit 2."""


class Parser(argparse.ArgumentParser):
    """argparse, but an error is one line (no usage dump) and exit 2; and a
    sub-command's arguments are added by `arguments(parser)` when that
    sub-command is parsed or its help shown, not for every command line."""

    def __init__(self, *args, arguments=None, **kwargs) -> None:
        self._arguments = arguments
        super().__init__(*args, **kwargs)

    def _add_arguments(self) -> None:
        if self._arguments is not None:
            add, self._arguments = self._arguments, None
            add(self)

    def parse_known_args(self, args=None, namespace=None):
        self._add_arguments()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._add_arguments()
        return super().format_usage()

    def format_help(self) -> str:
        self._add_arguments()
        return super().format_help()

    def error(self, message: str):  # noqa: D401 - argparse API
        raise UsageError(message)


def _int_in(lo: int, hi: int, key: str, **extra):
    def convert(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = None
        if number is None or not lo <= number <= hi:
            raise argparse.ArgumentTypeError(t(key, _ENV_LANG, value=value, **extra))
        return number
    return convert


def _lang(value: str) -> str:
    if value not in LANGS:
        raise argparse.ArgumentTypeError(t("cli.bad_lang", _ENV_LANG, value=value))
    return value


def _dwell(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not 0.25 <= seconds <= 10:  # NaN fails this too
        raise argparse.ArgumentTypeError(t("cli.bad_dwell", _ENV_LANG, value=value))
    return seconds


_ENV_LANG = lang_from_env()


def _h(key: str) -> str:
    return t(key, _ENV_LANG)


def _add_common(p: argparse.ArgumentParser, step_help: str = "cli.help.step") -> None:
    p.add_argument("--step", type=_int_in(1, STEPS, "cli.bad_step", steps=STEPS), help=_h(step_help))
    p.add_argument("--lang", type=_lang, help=_h("cli.help.lang"))


def _add_explore(p: argparse.ArgumentParser) -> None:
    from maskattn_tui.cli.explore_options import add_explore_arguments

    add_explore_arguments(p, _ENV_LANG)


def _add_mask(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mask", metavar="FILE", help=_h("cli.help.mask"))
    whole = _int_in(0, 1 << 30, "cli.bad_index")
    p.add_argument("--batch", type=whole, metavar="B", help=_h("cli.help.mask_batch"))
    p.add_argument("--head", type=whole, metavar="H", help=_h("cli.help.mask_head"))
    p.add_argument("--scores", metavar="FILE", help=_h("cli.help.mask_scores"))
    p.add_argument("--block", type=_block, metavar="N", help=_h("cli.help.mask_block"))


def _block(value: str) -> int:
    from maskattn_tui.model.mask_model import BLOCK_SIZES

    if value.isdigit() and int(value) in BLOCK_SIZES:
        return int(value)
    raise argparse.ArgumentTypeError(t("cli.bad_block", _ENV_LANG, value=value,
                                       sizes=", ".join(map(str, BLOCK_SIZES))))


def _mask_doc(args, lang: str):
    """--mask FILE read and diagnosed before the app starts (a bad file: one
    line, exit 2); None without --mask."""
    if args.mask is None:
        for option in ("batch", "head", "scores", "block"):
            if getattr(args, option) is not None:
                raise UsageError(t("cli.mask_only", lang, option=f"--{option}"))
        return None
    from maskattn_tui.doctor.mask_open import open_mask

    return open_mask(args.mask, args.batch, args.head, args.scores)


def build_parser() -> Parser:
    parser = Parser(prog="maskattn-tui", description=_h("cli.description"), epilog=_h("cli.epilog"))
    parser.add_argument("--version", action="version", version=f"maskattn-tui {__version__}",
                        help=_h("cli.help.version"))
    _add_common(parser)
    parser.add_argument("--dwell", type=_dwell, default=2.0, help=_h("cli.help.dwell"))
    parser.add_argument("--play", action="store_true", help=_h("cli.help.play"))
    parser.add_argument("--exit-at-end", action="store_true", help=_h("cli.help.exit_at_end"))
    parser.add_argument("--ascii", action="store_true", help=_h("cli.help.ascii"))
    _add_mask(parser)
    _add_explore(parser)
    sub = parser.add_subparsers(dest="command", metavar="{print,json,check,export,doctor}", parser_class=Parser)
    for name, arguments in (("print", _print_arguments), ("json", _json_arguments),
                            ("check", _check_arguments), ("export", _export_arguments),
                            ("doctor", _doctor_arguments)):
        sub.add_parser(name, help=_h(f"cli.help.{name}"), description=_h(f"cli.help.{name}"), arguments=arguments)
    return parser


def _print_arguments(p_print: Parser) -> None:
    _add_common(p_print)
    p_print.add_argument("--all", action="store_true", help=_h("cli.help.all"))
    p_print.add_argument("--width", type=_int_in(40, 1000, "cli.bad_width"), help=_h("cli.help.width"))
    p_print.add_argument("--no-color", action="store_true", help=_h("cli.help.no_color"))
    p_print.add_argument("--ascii", action="store_true", help=_h("cli.help.ascii"))
    _add_explore(p_print)


def _json_arguments(p_json: Parser) -> None:
    _add_common(p_json, "cli.help.json_step")
    _add_explore(p_json)


def _check_arguments(p_check: Parser) -> None:
    p_check.add_argument("--lang", type=_lang, help=_h("cli.help.lang"))
    p_check.add_argument("--json", action="store_true", help=_h("cli.help.check_json"))


def _export_arguments(p_export: Parser) -> None:
    p_export.add_argument("--out", required=True, metavar="DIR", help=_h("cli.help.export_out"))
    p_export.add_argument("--size", default="100x30", metavar="WxH", help=_h("cli.help.export_size"))
    p_export.add_argument("--lang", type=_lang, help=_h("cli.help.lang"))
    p_export.add_argument("--format", choices=("svg", "txt"), default="svg", help=_h("cli.help.export_format"))
    p_export.add_argument("--force", action="store_true", help=_h("cli.help.export_force"))
    p_export.add_argument("--ascii", action="store_true", help=_h("cli.help.ascii"))
    _add_explore(p_export)


def _doctor_arguments(p_doctor: Parser) -> None:
    from maskattn_tui.doctor import cli as doctor_cli  # numpy only when the doctor runs

    doctor_cli.add_arguments(p_doctor, _ENV_LANG)


def ascii_wanted(flag: bool, environ=None, terminal: bool = True) -> bool:
    """--ascii, a locale that is not UTF-8, or (when drawing on a terminal)
    the Linux console, whose fonts lack the check marks, eighth blocks and
    rounded corners."""
    if flag:
        return True
    env = os.environ if environ is None else environ
    if terminal and env.get("TERM") == "linux":
        return True
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name, "")
        if value:
            return not ("utf-8" in value.lower() or "utf8" in value.lower())
    return False


def _explore_config(args):
    """The explore configuration from the options, or None for F12."""
    from maskattn_tui.cli.explore_options import config_from_args

    return config_from_args(args)


class Shown:
    """What `print` and `json` show: the views, and what --lens and
    --experiment add to them. (A plain class: a dataclass would import
    `dataclasses` for every command line, --help included.)"""

    def __init__(self, figure, views: list, explore: bool, config=None,
                 lens_names: tuple[str, ...] | None = None,
                 experiments: tuple[tuple[str, object], ...] = (), default_config: bool = False) -> None:
        self.figure = figure
        self.views = views
        self.explore = explore  # an explore configuration (one step), not F12 steps
        self.config = config  # its ExploreConfig
        self.lens_names = lens_names
        self.experiments = experiments
        #: --experiment without any other explore option: the default configuration
        self.default_config = default_config


def _only_experiment(args) -> bool:
    """Was --experiment the only option asking for explore mode?"""
    from maskattn_tui.cli.explore_options import EXPERIMENT_DEST, explore_requested

    rest = argparse.Namespace(**{k: v for k, v in vars(args).items() if k != EXPERIMENT_DEST})
    return hasattr(args, EXPERIMENT_DEST) and not explore_requested(rest)


def _views(args, lang: str) -> Shown:
    from maskattn_tui.cli.explore_options import experiments_from_args, lenses_from_args
    from maskattn_tui.lesson.f12 import load_f12
    from maskattn_tui.lesson.stepview import build_view

    figure = load_f12()
    lens_names = lenses_from_args(args)
    experiment_names = experiments_from_args(args)
    # --experiment alone starts explore mode on the default configuration.
    config = _explore_config(args)
    if config is not None:
        # An explore configuration is one step; --step/--all do not apply.
        from maskattn_tui.explore.experiments import run_experiment
        from maskattn_tui.explore.view import explore_view

        runs = tuple((name, run_experiment(name, config)) for name in experiment_names or ())
        return Shown(figure, [explore_view(config)], True, config, lens_names, runs,
                     default_config=_only_experiment(args))
    steps = figure.steps
    chosen = steps if (getattr(args, "all", False) or (args.command == "json" and not args.step)) \
        else [steps[(args.step or 1) - 1]]
    return Shown(figure, [build_view(s, len(steps)) for s in chosen], False, lens_names=lens_names)


def cmd_print(args, lang: str) -> int:
    from rich.console import Console

    from maskattn_tui.render.palette import default_palette
    from maskattn_tui.render.printout import print_steps

    if args.all and args.step:
        raise UsageError(t("cli.step_and_all", lang))
    shown = _views(args, lang)
    no_color = args.no_color or "NO_COLOR" in os.environ
    console = Console(width=args.width, no_color=no_color, highlight=False, emoji=False,
                      soft_wrap=False)
    if args.width is None and not console.is_terminal:
        console.width = 100
    palette = default_palette(ascii=ascii_wanted(args.ascii), color=not no_color)
    notice = None
    if shown.default_config:
        notice = t("render.x.experiments.default_config", lang, past=shown.config.past, new=shown.config.new)
    print_steps(console, shown.figure, shown.views, lang, palette, with_sections=args.all or shown.explore,
                lens_names=shown.lens_names, experiments=shown.experiments, notice=notice)
    return 0


def cmd_json(args, lang: str) -> int:
    from maskattn_tui.cli.jsonout import document, dumps

    shown = _views(args, lang)
    doc = document(shown.views, lang)
    for view, step in zip(shown.views, doc["steps"]):
        if shown.config is not None:
            step["query_is_pad"] = list(shown.config.query_is_pad)
        if shown.lens_names:
            from maskattn_tui.explore.api_lens import lenses

            step["api_lens"] = lenses(view.table, shown.lens_names, lang)
        if shown.experiments:
            from maskattn_tui.explore.experiments import experiment_data

            step["experiments"] = {name: experiment_data(name, result, lang) for name, result in shown.experiments}
    sys.stdout.write(dumps(doc) + "\n")
    return 0


def cmd_check(args, lang: str) -> int:
    import json

    from maskattn_tui.lesson.checks import run_checks

    results = run_checks()
    passed = sum(r.passed for r in results)
    if args.json:
        sys.stdout.write(json.dumps({
            "passed": passed, "total": len(results),
            "checks": [{"id": r.id, "passed": r.passed, "message": t(f"check.{r.id}", lang, **r.detail)}
                       for r in results],
        }, ensure_ascii=False, indent=2) + "\n")
    else:
        for r in results:
            mark = t("check.pass" if r.passed else "check.fail", lang)
            sys.stdout.write(f"{mark:5} {t(f'check.{r.id}', lang, **r.detail)}\n")
        sys.stdout.write(t("check.summary", lang, passed=passed, total=len(results)) + "\n")
    return 0 if passed == len(results) else 1


def cmd_export(args, lang: str) -> int:
    """One frame per step (+ the explore configuration's), drawn by the app;
    everything is checked before anything is written (maskattn_tui.cli.export)."""
    from pathlib import Path

    from maskattn_tui.cli import export

    size = export.parse_size(args.size)
    config = _explore_config(args)
    explore = None
    if config is not None:  # the explore frame: the app as `maskattn-tui OPTIONS` starts
        from maskattn_tui.cli.explore_options import experiments_from_args, lenses_from_args

        explore = dict(explore=config, experiments=experiments_from_args(args) or (),
                       lens=lenses_from_args(args) is not None)
    out = Path(args.out)
    frames = export.plan(out, lang, args.format, STEPS, explore=explore is not None)
    export.check_targets(out, frames, args.force)
    drawn = export.draw_frames(frames, size, args.format, lang, ascii_wanted(args.ascii, terminal=False), explore)
    try:
        export.write_all(out, drawn)
    except OSError as exc:
        raise export.ExportError("unwritable", path=exc.filename or out, reason=exc.strerror or exc) from None
    for path in drawn:
        sys.stdout.write(f"{path}\n")
    return 0


def cmd_tui(args, lang: str) -> int:
    if args.exit_at_end and not args.play:
        raise UsageError(t("cli.exit_needs_play", lang))
    config = _explore_config(args)
    from maskattn_tui.cli.explore_options import experiments_from_args, lenses_from_args
    from maskattn_tui.tui.app import make_app

    # --experiment NAME switches those on; --lens shows the API lens (the
    # app shows every lens, whatever names were given).
    experiments = experiments_from_args(args) or ()
    lens = lenses_from_args(args) is not None
    mask = _mask_doc(args, lang)
    app = make_app(step=args.step or 1, lang=lang, dwell=args.dwell, play=args.play,
                   ascii=ascii_wanted(args.ascii), exit_at_end=args.exit_at_end,
                   explore=config, experiments=experiments, lens=lens, mask=mask, block=args.block)
    app.gc_paused = getattr(args, "gc_paused", False)
    app.run()
    return app.return_code or 0


def cmd_doctor(args, lang: str) -> int:
    from maskattn_tui.doctor import cli as doctor_cli

    return doctor_cli.run(args, lang)


COMMANDS = {None: cmd_tui, "print": cmd_print, "json": cmd_json, "check": cmd_check, "export": cmd_export,
            "doctor": cmd_doctor}
#: Commands that write their output and exit: short, bounded runs.
BATCH_COMMANDS = frozenset({"print", "json", "check", "doctor"})


def _pause_gc(pause: bool) -> None:
    """When main() runs as the program: no cyclic garbage collection while
    the command line is parsed and a batch command (or --help, --version,
    a usage error) runs, and the heap frozen at exit, so that the
    interpreter's last collections do not walk every object that the
    imports, Rich and the figure made (~9 ms of `print --all`, ~8 ms of
    --help; the output is the same, and these runs allocate a few MB at
    most). pause=False undoes it, for export, which draws many frames. The
    TUI keeps it paused for its start and resumes it itself once its
    first screen is drawn (tui.app.resume_gc). Not used for main(argv)
    called by a test or another program, whose process this is not."""
    import atexit
    import gc

    if pause:
        gc.disable()
        atexit.register(gc.freeze)
    else:
        atexit.unregister(gc.freeze)
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    lang = _ENV_LANG
    owns_process = argv is None
    if owns_process:
        _pause_gc(True)
    try:
        args = build_parser().parse_args(argv)
        lang = args.lang or _ENV_LANG
        if owns_process and args.command is None:
            args.gc_paused = True  # the app resumes it once its first screen is drawn
        elif owns_process and args.command not in BATCH_COMMANDS:
            _pause_gc(False)
        return COMMANDS[args.command](args, lang)
    except UsageError as exc:
        from maskattn_tui.cli.messages import argparse_message  # only when there is an error

        sys.stderr.write(t("cli.error", lang, message=argparse_message(str(exc), lang)) + t("cli.hint", lang) + "\n")
        return EXIT_USAGE
    except MaskattnError as exc:
        sys.stderr.write(t("cli.error", lang, message=exc.message(lang)) + "\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write(t("cli.interrupted", lang) + "\n")
        return 130
    except BrokenPipeError:
        # `maskattn-tui print --all | head`: the reader left; not an error.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
