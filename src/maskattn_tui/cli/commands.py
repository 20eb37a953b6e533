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


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help in the user's language: its own "usage:" too, and
    Chinese lines wrapped by display width (argparse's textwrap needs spaces
    to break at and counts a CJK character as one column)."""

    def add_usage(self, usage, actions, groups, prefix=None) -> None:
        if prefix is None:
            prefix = t("cli.argparse.usage", _ENV_LANG)
        super().add_usage(usage, actions, groups, prefix)

    def _format_usage(self, usage, actions, groups, prefix) -> str:
        # "用法：" is 3 characters but 6 columns: wrap 3 columns earlier, and
        # indent the continuation lines under the program name.
        from maskattn_tui.cli.help_wrap import width

        extra = width(prefix or "") - len(prefix or "")
        self._width -= extra
        try:
            text = super()._format_usage(usage, actions, groups, prefix)
        finally:
            self._width += extra
        if not extra:
            return text
        first, *rest = text.split("\n")
        return "\n".join([first, *((" " * extra + line) if line.strip() else line for line in rest)])

    def _split_lines(self, text: str, width: int) -> list[str]:
        from maskattn_tui.cli.help_wrap import has_wide, wrap

        if not has_wide(text):
            return super()._split_lines(text, width)
        return wrap(" ".join(text.split()), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        from maskattn_tui.cli.help_wrap import has_wide, wrap

        if not has_wide(text):
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap(" ".join(text.split()), width - len(indent)))


class _SubCommands(argparse._SubParsersAction):
    """Notes which options came before the sub-command (they are on the
    namespace when it is reached: every top-level option defaults to
    SUPPRESS), so that main() can apply them to it or refuse them."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        namespace.given_before = tuple(vars(namespace))
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """argparse, but an error is one line (no usage dump) and exit 2; and a
    sub-command's arguments are added by `arguments(parser)` when that
    sub-command is parsed or its help shown, not for every command line."""

    def __init__(self, *args, arguments=None, **kwargs) -> None:
        self._arguments = arguments
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", _SubCommands)
        # argparse's own headings, in the user's language
        self._positionals.title = t("cli.argparse.positionals", _ENV_LANG)
        self._optionals.title = t("cli.argparse.options", _ENV_LANG)
        for action in self._actions:
            if action.dest == "help":
                action.help = t("cli.argparse.help", _ENV_LANG)

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


#: Options both before and after a sub-command default to SUPPRESS (so that
#: one given before is not overwritten by the sub-command's default); main()
#: fills these in when neither gave them.
DEFAULTS = {"step": None, "lang": None, "dwell": 2.0, "play": False, "exit_at_end": False, "ascii": False}
_UNSET = argparse.SUPPRESS


def _add_common(p: argparse.ArgumentParser, step_help: str = "cli.help.step") -> None:
    p.add_argument("--step", type=_int_in(1, STEPS, "cli.bad_step", steps=STEPS), help=_h(step_help),
                   default=_UNSET)
    _add_lang(p)


def _add_lang(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lang", type=_lang, help=_h("cli.help.lang"), default=_UNSET)


def _add_ascii(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ascii", action="store_true", help=_h("cli.help.ascii"), default=_UNSET)


def _add_explore(p: argparse.ArgumentParser) -> None:
    from maskattn_tui.cli.explore_options import add_explore_arguments

    add_explore_arguments(p, _ENV_LANG)


def build_parser() -> Parser:
    parser = Parser(prog="maskattn-tui", description=_h("cli.description"), epilog=_h("cli.epilog"))
    parser.add_argument("--version", action="version", version=f"maskattn-tui {__version__}",
                        help=_h("cli.help.version"))
    _add_common(parser)
    parser.add_argument("--dwell", type=_dwell, default=_UNSET, help=_h("cli.help.dwell"))
    parser.add_argument("--play", action="store_true", default=_UNSET, help=_h("cli.help.play"))
    parser.add_argument("--exit-at-end", action="store_true", default=_UNSET, help=_h("cli.help.exit_at_end"))
    _add_ascii(parser)
    _add_explore(parser)
    sub = parser.add_subparsers(dest="command", metavar="{print,json,check,export}", parser_class=Parser)
    for name, arguments in (("print", _print_arguments), ("json", _json_arguments),
                            ("check", _check_arguments), ("export", _export_arguments)):
        sub.add_parser(name, help=_h(f"cli.help.{name}"), description=_h(f"cli.help.{name}"), arguments=arguments)
    return parser


def _print_arguments(p_print: Parser) -> None:
    _add_common(p_print)
    p_print.add_argument("--all", action="store_true", help=_h("cli.help.all"))
    p_print.add_argument("--width", type=_int_in(40, 1000, "cli.bad_width"), help=_h("cli.help.width"))
    p_print.add_argument("--no-color", action="store_true", help=_h("cli.help.no_color"))
    _add_ascii(p_print)
    _add_explore(p_print)


def _json_arguments(p_json: Parser) -> None:
    _add_common(p_json, "cli.help.json_step")
    _add_explore(p_json)


def _check_arguments(p_check: Parser) -> None:
    _add_lang(p_check)
    p_check.add_argument("--json", action="store_true", help=_h("cli.help.check_json"))


def _export_arguments(p_export: Parser) -> None:
    p_export.add_argument("--out", required=True, metavar="DIR", help=_h("cli.help.export_out"))
    p_export.add_argument("--size", default="100x30", metavar="WxH", help=_h("cli.help.export_size"))
    _add_lang(p_export)
    p_export.add_argument("--format", choices=("svg", "txt"), default="svg", help=_h("cli.help.export_format"))
    p_export.add_argument("--force", action="store_true", help=_h("cli.help.export_force"))
    _add_ascii(p_export)
    _add_explore(p_export)


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


def _PipeConsole(**kwargs):
    """A Rich Console whose closed pipe reaches main() (Rich's own handler
    exits with status 1)."""
    from rich.console import Console

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return PipeConsole(**kwargs)


def cmd_print(args, lang: str) -> int:
    from maskattn_tui.render.palette import default_palette
    from maskattn_tui.render.printout import print_steps

    from maskattn_tui.cli.output import PrintFile, can_encode

    shown = _views(args, lang)
    no_color = args.no_color or "NO_COLOR" in os.environ
    ascii = ascii_wanted(args.ascii) or not can_encode(sys.stdout, "✓▏")
    out = PrintFile(sys.stdout, ascii=ascii)
    console = _PipeConsole(file=out, width=args.width, no_color=no_color, highlight=False, emoji=False,
                           soft_wrap=False)
    if args.width is None and not console.is_terminal:
        console.width = 100
    palette = default_palette(ascii=ascii, color=not no_color)
    notice = None
    if shown.default_config:
        notice = t("render.x.experiments.default_config", lang, past=shown.config.past, new=shown.config.new)
    print_steps(console, shown.figure, shown.views, lang, palette, with_sections=args.all or shown.explore,
                lens_names=shown.lens_names, experiments=shown.experiments, notice=notice)
    out.flush()
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
    from maskattn_tui.cli.output import can_encode

    # A stream that cannot hold every character gets JSON's own escapes.
    sys.stdout.write(dumps(doc, ascii=not can_encode(sys.stdout)) + "\n")
    return 0


def cmd_check(args, lang: str) -> int:
    import json

    from maskattn_tui.cli.output import can_encode
    from maskattn_tui.lesson.checks import run_checks

    results = run_checks()
    passed = sum(r.passed for r in results)
    if args.json:
        sys.stdout.write(json.dumps({
            "passed": passed, "total": len(results),
            "checks": [{"id": r.id, "passed": r.passed, "message": t(f"check.{r.id}", lang, **r.detail)}
                       for r in results],
        }, ensure_ascii=not can_encode(sys.stdout), indent=2) + "\n")
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


class CommandError(MaskattnError):
    """A command that cannot run here: one line (data/strings/cli.json), exit 2."""

    def message(self, lang: str) -> str:
        return t(f"cli.{self.key}", lang, **self.params)


def _on_a_terminal() -> bool:
    """The app reads keys from stdin and draws on stderr (Textual's driver);
    with any of the three streams redirected it would write escape codes into
    a file or wait for keys that never come."""
    streams = (sys.__stdin__, sys.__stdout__, sys.__stderr__)
    try:
        return all(s is not None and s.isatty() for s in streams)
    except (ValueError, OSError):  # a closed stream
        return False


def cmd_tui(args, lang: str) -> int:
    if args.exit_at_end and not args.play:
        raise UsageError(t("cli.exit_needs_play", lang))
    if getattr(args, "owns_process", False) and not _on_a_terminal():
        raise CommandError("no_terminal")
    config = _explore_config(args)
    from maskattn_tui.cli.explore_options import experiments_from_args, lenses_from_args
    from maskattn_tui.tui.app import make_app

    # --experiment NAME switches those on; --lens shows the API lens (the
    # app shows every lens, whatever names were given).
    experiments = experiments_from_args(args) or ()
    lens = lenses_from_args(args) is not None
    app = make_app(step=args.step or 1, lang=lang, dwell=args.dwell, play=args.play,
                   ascii=ascii_wanted(args.ascii), exit_at_end=args.exit_at_end,
                   explore=config, experiments=experiments, lens=lens)
    app.gc_paused = getattr(args, "gc_paused", False)
    app.run()
    return app.return_code or 0


COMMANDS = {None: cmd_tui, "print": cmd_print, "json": cmd_json, "check": cmd_check, "export": cmd_export}
#: Commands that write their output and exit: short, bounded runs.
BATCH_COMMANDS = frozenset({"print", "json", "check"})


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


def _lang_in(argv: list[str]) -> str | None:
    """A --lang given anywhere on the command line, for a message written
    before (or because) the line could not be parsed."""
    for i, arg in enumerate(argv):
        value = arg.partition("=")[2] if arg.startswith("--lang=") else \
            (argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else None)
        if value in LANGS:
            return value
    return None


def _settle_options(args, parser: Parser) -> None:
    """Options given before the sub-command: applied when the sub-command
    has them too (one given after it wins), refused when it has not; then
    the defaults of those not given."""
    before = getattr(args, "given_before", ())
    if args.command is not None:
        sub = parser._subparsers._group_actions[0].choices[args.command]
        own = {a.dest for a in sub._actions}
        names = {a.dest: a.option_strings[0] for a in parser._actions if a.option_strings}
        for dest in before:
            if dest in names and dest not in own:
                raise UsageError(t("cli.not_for_command", _lang_of(args), option=names[dest], command=args.command))
    for dest, value in DEFAULTS.items():
        if not hasattr(args, dest):
            setattr(args, dest, value)
    if hasattr(args, "given_before"):
        del args.given_before


def _lang_of(args) -> str:
    return getattr(args, "lang", None) or _ENV_LANG


def _refuse_contradictions(args) -> None:
    """One step (--step), all steps (--all) and an explore configuration
    (one step of its own) exclude each other: refused, naming both."""
    from maskattn_tui.cli.explore_options import EXPERIMENT_DEST, OPTIONS, SCENARIO_DEST

    lang = _lang_of(args)
    explore = [option for option, dest, _ in OPTIONS.values() if hasattr(args, dest)]
    explore += [option for option, dest in (("--scenario", SCENARIO_DEST), ("--experiment", EXPERIMENT_DEST))
                if hasattr(args, dest)]
    chosen = [option for option, given in (("--step", args.step), ("--all", getattr(args, "all", False))) if given]
    if len(chosen) == 2:
        raise UsageError(t("cli.step_and_all", lang))
    if chosen and explore:
        raise UsageError(t("cli.contradiction", lang, a=chosen[0], b=explore[0]))


def _error_line(text: str, lang: str) -> None:
    from maskattn_tui.cli.output import clean_line

    sys.stderr.write(clean_line(text, lang) + "\n")


def main(argv: list[str] | None = None) -> int:
    from maskattn_tui.cli.output import never_fail_on_characters, reader_left

    global _ENV_LANG
    owns_process = argv is None
    arguments = sys.argv[1:] if argv is None else list(argv)
    # --lang anywhere also sets the language of --help and of argparse's messages.
    lang = _ENV_LANG = _lang_in(arguments) or lang_from_env()
    if owns_process:
        _pause_gc(True)
        never_fail_on_characters()
    try:
        parser = build_parser()
        args = parser.parse_args(arguments)
        _settle_options(args, parser)
        lang = args.lang or _ENV_LANG
        args.owns_process = owns_process
        if args.command in ("print", "json"):
            _refuse_contradictions(args)
        if owns_process and args.command is None:
            args.gc_paused = True  # the app resumes it once its first screen is drawn
        elif owns_process and args.command not in BATCH_COMMANDS:
            _pause_gc(False)
        code = COMMANDS[args.command](args, lang)
        if owns_process:
            sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
        return code
    except UsageError as exc:
        from maskattn_tui.cli.messages import argparse_message  # only when there is an error

        _error_line(t("cli.error", lang, message=argparse_message(str(exc), lang)) + t("cli.hint", lang), lang)
        return EXIT_USAGE
    except MaskattnError as exc:
        _error_line(t("cli.error", lang, message=exc.message(lang)), lang)
        return EXIT_USAGE
    except KeyboardInterrupt:
        _error_line(t("cli.interrupted", lang), lang)
        return 130
    except BrokenPipeError:
        # `maskattn-tui print --all | head`: the reader left; not an error.
        return reader_left()
