"""Command line: the TUI by default; `print`, `json`, `check` (and `export`)
as non-interactive outputs. Only argparse and the pure engine are imported
at the top, so --help, print, json and check never load Textual."""

from __future__ import annotations

import argparse
import os
import sys

from maskattn_tui.cli.mask_doc import mask_doc
from maskattn_tui.cli.parser import STEPS, UsageError, build_parser, lang_in, refuse_contradictions, \
    set_lang, settle_options
from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import lang_from_env, t

EXIT_USAGE = 2
#: Positions of the F12 walkthrough's largest table (step 5: past 3 + new 2).
STEP5_KEYS = 5


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
        from maskattn_tui.explore.experiment_runs import run_experiment
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


def _by_blocks(args) -> bool:
    """Beyond the explorer's 32 + 32: `print` and `json` show blocks (scale)."""
    from maskattn_tui.cli.explore_options import EXPERIMENT_DEST, LENS_DEST, PRESET_DEST, SCENARIO_DEST
    from maskattn_tui.scale.explore_route import wants_scale

    return wants_scale(args, (SCENARIO_DEST, PRESET_DEST, LENS_DEST, EXPERIMENT_DEST))


def cmd_print(args, lang: str) -> int:
    from maskattn_tui.render.palette import default_palette
    from maskattn_tui.render.printout import print_steps

    from maskattn_tui.cli.output import PrintFile, can_encode

    if args.mask is None and _by_blocks(args):  # with --mask, --row / --key select in the mask
        from maskattn_tui.cli.big_config import show_big

        return show_big(args, lang, as_json=False)
    mask = mask_doc(args, lang)  # --mask FILE read (and --block etc. refused without it)
    shown = None if mask is not None else _views(args, lang)
    no_color = args.no_color or "NO_COLOR" in os.environ
    ascii = ascii_wanted(args.ascii) or not can_encode(sys.stdout, "✓▏")
    out = PrintFile(sys.stdout, ascii=ascii)
    console = _PipeConsole(file=out, width=args.width, no_color=no_color, highlight=False, emoji=False,
                           soft_wrap=False)
    if args.width is None and not console.is_terminal:
        console.width = 100
    palette = default_palette(ascii=ascii, color=not no_color)
    from maskattn_tui.cli.labels import labels_from_args

    if shown is None:  # --mask: mask mode's screen as text
        from maskattn_tui.cli.mask_print import print_mask

        print_mask(console, mask, lang, palette, args.mask_block, labels_from_args(args, mask.tables.keys),
                   getattr(args, "scale_row", None), getattr(args, "scale_key", None))
        out.flush()
        return 0
    tokens = labels_from_args(args, max(len(v.table.key_positions) for v in shown.views))
    notice = None
    if shown.default_config:
        notice = t("render.x.experiments.default_config", lang, past=shown.config.past, new=shown.config.new)
    scale = None
    if not shown.explore:  # the bars on the app's scale: every step's
        from maskattn_tui.lesson.stepview import build_view

        steps = shown.figure.steps
        scale = [build_view(s, len(steps)) for s in steps]
    print_steps(console, shown.figure, shown.views, lang, palette, with_sections=args.all or shown.explore,
                lens_names=shown.lens_names, experiments=shown.experiments, notice=notice, scale=scale,
                tokens=tokens)
    out.flush()
    return 0


def cmd_json(args, lang: str) -> int:
    from maskattn_tui.cli.jsonout import document, dumps

    if _by_blocks(args):
        from maskattn_tui.cli.big_config import show_big

        return show_big(args, lang, as_json=True)
    shown = _views(args, lang)
    doc = document(shown.views, lang)
    from maskattn_tui.cli.labels import labels_at, labels_from_args

    tokens = labels_from_args(args, max(len(v.table.key_positions) for v in shown.views))  # as print counts
    for view, step in zip(shown.views, doc["steps"]):
        if tokens:
            step["query_labels"] = labels_at(tokens, view.table.query_positions)
            step["key_labels"] = labels_at(tokens, view.table.key_positions)
        if shown.config is not None:
            step["query_is_pad"] = list(shown.config.query_is_pad)
        if shown.lens_names:
            from maskattn_tui.explore.api_lens import lenses, model_scores

            step["api_lens"] = lenses(view.table, shown.lens_names, lang, model_scores(view.result))
        if shown.experiments:
            from maskattn_tui.explore.experiment_runs import experiment_data

            step["experiments"] = {name: experiment_data(name, result, lang) for name, result in shown.experiments}
    from maskattn_tui.cli.output import can_encode

    # A stream that cannot hold every character gets JSON's own escapes.
    sys.stdout.write(dumps(doc, ascii=not can_encode(sys.stdout)) + "\n")
    return 0


def cmd_check(args, lang: str) -> int:
    from maskattn_tui import strict_json
    from maskattn_tui.cli.output import can_encode
    from maskattn_tui.lesson.checks import run_checks

    results = run_checks()
    passed = sum(r.passed for r in results)
    if args.json:
        sys.stdout.write(strict_json.dumps({
            "passed": passed, "total": len(results),
            "checks": [{"id": r.id, "passed": r.passed, "message": t(f"check.{r.id}", lang, **r.detail)}
                       for r in results],
        }, ascii=not can_encode(sys.stdout)) + "\n")
    else:
        for r in results:
            mark = t("check.pass" if r.passed else "check.fail", lang)
            sys.stdout.write(f"{mark:5} {t(f'check.{r.id}', lang, **r.detail)}\n")
        sys.stdout.write(t("check.summary", lang, passed=passed, total=len(results)) + "\n")
    return 0 if passed == len(results) else 1


def cmd_export(args, lang: str) -> int:
    """One frame per step (+ the explore configuration's), drawn by the app;
    everything is checked before anything is written (maskattn_tui.cli.export)."""
    from maskattn_tui.cli import export

    return export.run(args, lang, _explore_config(args), ascii_wanted(args.ascii, terminal=False), STEP5_KEYS)


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


def _app_start(args, lang: str):
    """What the app opens on: its explore configuration and the mask for
    mask mode (each None when not asked for); MaskattnError if bad."""
    big = args.mask is None and _by_blocks(args)  # beyond 32 + 32: mask mode on the rule's runs (maskmode.rule_doc)
    if big:
        from maskattn_tui.cli.big_config import big_config_from_args
        from maskattn_tui.maskmode.rule_doc import RuleDoc

        return None, RuleDoc(big_config_from_args(args), lang)
    return _explore_config(args), mask_doc(args, lang)


def cmd_tui(args, lang: str) -> int:
    if args.exit_at_end and not args.play:
        raise UsageError(t("cli.exit_needs_play", lang))
    # (textual-serve's child has no terminal: Textual's web driver, named in TEXTUAL_DRIVER, draws for a browser)
    if getattr(args, "owns_process", False) and not _on_a_terminal() and not os.environ.get("TEXTUAL_DRIVER"):
        raise CommandError("no_terminal")
    config, mask = _app_start(args, lang)
    from maskattn_tui.cli.explore_options import experiments_from_args, lenses_from_args
    from maskattn_tui.tui.app import make_app

    # --experiment NAME switches those on; --lens shows the API lens (the
    # app shows every lens, whatever names were given).
    experiments = experiments_from_args(args) or ()
    lens = lenses_from_args(args) is not None
    from maskattn_tui.cli.labels import labels_from_args

    positions = (mask.tables.keys if mask is not None else config.past + config.new if config is not None
                 else STEP5_KEYS)
    app = make_app(step=args.step or 1, lang=lang, dwell=args.dwell, play=args.play,
                   ascii=ascii_wanted(args.ascii), exit_at_end=args.exit_at_end,
                   explore=config, experiments=experiments, lens=lens, mask=mask, block=args.mask_block,
                   labels=labels_from_args(args, positions), row=getattr(args, "app_row", None))
    from maskattn_tui.cli.config_file import looks
    from maskattn_tui.tui.bindings import wear

    wear(app, **looks(args))  # the settings file's theme and keys
    app.gc_paused = getattr(args, "gc_paused", False)
    app.run()
    return app.return_code or 0


def cmd_serve(args, lang: str) -> int:
    """The app in browsers (cli.serve); its options checked first as the app would check them."""
    from maskattn_tui.cli.serve import run

    return run(args, lang, _app_start)


def cmd_config(args, lang: str) -> int:
    from maskattn_tui.cli.config_file import report

    sys.stdout.write(report(args, lang, ascii_wanted(False)))
    return 0


def cmd_doctor(args, lang: str) -> int:
    from maskattn_tui.cli import doctor as doctor_cli

    return doctor_cli.run(args, lang)


def cmd_capture(args, lang: str) -> int:
    from maskattn_tui.capture.run import run

    return run(args.out, args.program, lang, args.weights)


def cmd_probe(args, lang: str) -> int:
    from maskattn_tui.cli.probe import run
    return run(args, lang)


COMMANDS = {None: cmd_tui, "print": cmd_print, "json": cmd_json, "check": cmd_check, "export": cmd_export,
            "doctor": cmd_doctor, "capture": cmd_capture, "probe": cmd_probe, "serve": cmd_serve,
            "config": cmd_config}
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
    first screen is drawn (MaskattnApp._started). Not used for main(argv)
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
    from maskattn_tui.cli.output import doctor_json_error, error_line, never_fail_on_characters, reader_left

    owns_process = argv is None
    arguments = sys.argv[1:] if argv is None else list(argv)
    # --lang anywhere also sets the language of --help and of argparse's messages.
    lang = env_lang = lang_in(arguments) or lang_from_env()
    set_lang(lang)
    if owns_process:
        _pause_gc(True)
        never_fail_on_characters()
    try:
        parser = build_parser()
        args = parser.parse_args(arguments)
        from maskattn_tui.cli import config_file  # the settings file: the options not given

        args.settings = config_file.load(getattr(args, "config_file", None))
        args.origins = config_file.apply(args, args.settings)
        settle_options(args, parser)
        lang = args.lang or env_lang
        args.owns_process = owns_process
        if owns_process and args.command is not None and sys.stdout is None:  # `>&-`
            raise CommandError("stdout_closed", command=args.command)
        if args.command in ("print", "json"):
            refuse_contradictions(args)
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

        error_line(t("cli.error", lang, message=argparse_message(str(exc), lang)) + t("cli.hint", lang), lang)
        doctor_json_error(arguments, "usage", argparse_message(str(exc), lang))
        return EXIT_USAGE
    except MaskattnError as exc:
        error_line(t("cli.error", lang, message=exc.message(lang)), lang)
        doctor_json_error(arguments, exc.key, exc.message(lang))
        return EXIT_USAGE
    except KeyboardInterrupt:
        error_line(t("cli.interrupted", lang), lang)
        return 130
    except BrokenPipeError:
        # `maskattn-tui print --all | head`: the reader left; not an error.
        return reader_left()
