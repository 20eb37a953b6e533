"""The command line's parser: argparse with one-line errors, sub-commands
whose arguments are added only when used, help in the user's language, and
the rules that join or refuse options given before a sub-command or
contradicting each other. Only argparse and i18n at the top (--help is timed)."""

from __future__ import annotations

import argparse

from maskattn_tui import __version__
from maskattn_tui.i18n import LANGS, lang_from_env, t

STEPS = 5


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


def lang_type(value: str) -> str:
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


def set_lang(lang: str) -> None:
    """The language of the help texts and argparse's messages (main() sets
    it from --lang before the parser is built)."""
    global _ENV_LANG
    _ENV_LANG = lang


def _h(key: str) -> str:
    return t(key, _ENV_LANG)


#: Options both before and after a sub-command default to SUPPRESS (so that
#: one given before is not overwritten by the sub-command's default); main()
#: fills these in when neither gave them.
DEFAULTS = {"step": None, "lang": None, "dwell": 2.0, "play": False, "exit_at_end": False, "ascii": False,
            "mask": None, "mask_batch": None, "mask_head": None, "mask_scores": None, "mask_block": None,
            "mask_q_len": None, "mask_kv_len": None, "mask_key": None, "mask_call": None, "config_file": None}
_UNSET = argparse.SUPPRESS


def _add_common(p: argparse.ArgumentParser, step_help: str = "cli.help.step") -> None:
    p.add_argument("--step", type=_int_in(1, STEPS, "cli.bad_step", steps=STEPS), help=_h(step_help),
                   default=_UNSET)
    _add_lang(p)


def _add_lang(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lang", type=lang_type, help=_h("cli.help.lang"), default=_UNSET)


def _add_ascii(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ascii", action="store_true", help=_h("cli.help.ascii"), default=_UNSET)


def _add_mask(p: argparse.ArgumentParser) -> None:
    """The app's mask mode: --mask FILE and what picks its slice, scores and
    block size (the doctor sub-command has its own --batch / --head)."""
    p.add_argument("--mask", metavar="FILE", help=_h("cli.help.mask"), default=_UNSET)
    whole = _int_in(0, 1 << 30, "cli.bad_index")
    p.add_argument("--batch", dest="mask_batch", type=whole, metavar="B", help=_h("cli.help.mask_batch"),
                   default=_UNSET)
    p.add_argument("--head", dest="mask_head", type=whole, metavar="H", help=_h("cli.help.mask_head"),
                   default=_UNSET)
    p.add_argument("--call", dest="mask_call", type=whole, metavar="N", help=_h("cli.help.mask_call"),
                   default=_UNSET)
    p.add_argument("--scores", dest="mask_scores", metavar="FILE", help=_h("cli.help.mask_scores"),
                   default=_UNSET)
    p.add_argument("--block", dest="mask_block", type=_block, metavar="N", help=_h("cli.help.mask_block"),
                   default=_UNSET)
    # --mask FILE.py:NAME: a mask_mod, evaluated at these lengths (maskmode.mask_mod_doc)
    p.add_argument("--q-len", dest="mask_q_len", type=_int_in(1, 1 << 20, "cli.bad_index"), metavar="Q",
                   help=_h("scale.help.mask_q_len"), default=_UNSET)
    p.add_argument("--kv-len", dest="mask_kv_len", type=_int_in(1, 1 << 20, "cli.bad_index"), metavar="K",
                   help=_h("scale.help.kv_len"), default=_UNSET)


def _block(value: str) -> int:
    from maskattn_tui.maskmode.block_stats import BLOCK_SIZES

    if value.isdigit() and int(value) in BLOCK_SIZES:
        return int(value)
    raise argparse.ArgumentTypeError(t("cli.bad_block", _ENV_LANG, value=value,
                                       sizes=", ".join(map(str, BLOCK_SIZES))))


def _add_labels(p: argparse.ArgumentParser) -> None:
    from maskattn_tui.cli.labels import add_labels_argument

    add_labels_argument(p, _ENV_LANG)


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
    # The app's --row (print and json have their own, a big configuration's row).
    parser.add_argument("--row", dest="app_row", type=_int_in(0, 1 << 20, "cli.bad_index"), metavar="R",
                        default=_UNSET, help=_h("scale_app.help.row"))
    _add_ascii(parser)
    _add_mask(parser)
    # The app's --mask only (print has its own --key, a key column of a scaled view).
    parser.add_argument("--key", dest="mask_key", metavar="NAME", help=_h("doctor_read.help.mask_key"),
                        default=_UNSET)
    _add_labels(parser)
    _add_explore(parser)
    # The settings file (language, theme, keys...): cli.config_file.
    parser.add_argument("--config-file", dest="config_file", metavar="FILE", default=_UNSET,
                        help=_h("eco.help.config_file"))
    sub = parser.add_subparsers(dest="command",
                                metavar="{print,json,check,export,doctor,capture,probe,serve,config}",
                                parser_class=Parser)
    for name, arguments in (("print", _print_arguments), ("json", _json_arguments),
                            ("check", _check_arguments), ("export", _export_arguments),
                            ("doctor", _doctor_arguments), ("capture", _capture_arguments),
                            ("probe", _probe_arguments), ("serve", _serve_arguments),
                            ("config", _config_arguments)):
        sub.add_parser(name, help=_h(f"cli.help.{name}"), description=_h(f"cli.help.{name}"), arguments=arguments)
    return parser


def _print_arguments(p_print: Parser) -> None:
    _add_common(p_print)
    p_print.add_argument("--all", action="store_true", help=_h("cli.help.all"))
    p_print.add_argument("--width", type=_int_in(40, 1000, "cli.bad_width"), help=_h("cli.help.width"))
    p_print.add_argument("--no-color", action="store_true", help=_h("cli.help.no_color"))
    _add_ascii(p_print)
    _add_mask(p_print)
    _add_labels(p_print)
    _add_explore(p_print)
    _add_row(p_print)


def _json_arguments(p_json: Parser) -> None:
    _add_common(p_json, "cli.help.json_step")
    _add_labels(p_json)
    _add_explore(p_json)
    _add_row(p_json)


def _add_row(p: argparse.ArgumentParser) -> None:
    """--row R: the selected query row of a configuration shown by blocks (scale.explore_print)."""
    p.add_argument("--row", dest="scale_row", type=_int_in(0, 1 << 20, "cli.bad_index"), metavar="R",
                   help=_h("scale.help.row"))
    p.add_argument("--key", dest="scale_key", type=_int_in(0, 1 << 20, "cli.bad_index"), metavar="K",
                   help=_h("scale.help.key"))


def _check_arguments(p_check: Parser) -> None:
    _add_lang(p_check)
    p_check.add_argument("--json", action="store_true", help=_h("cli.help.check_json"))


def _export_arguments(p_export: Parser) -> None:
    p_export.add_argument("--out", required=True, metavar="DIR", help=_h("cli.help.export_out"))
    p_export.add_argument("--size", default="100x30", metavar="WxH", help=_h("cli.help.export_size"))
    _add_lang(p_export)
    p_export.add_argument("--format", choices=("svg", "txt", "animated-svg"), default="svg", metavar="FORMAT", help=_h("cli.help.export_format"))
    p_export.add_argument("--force", action="store_true", help=_h("cli.help.export_force"))
    p_export.add_argument("--dwell", type=_dwell, default=_UNSET, help=_h("eco.help.export_dwell"))
    _add_ascii(p_export)
    _add_labels(p_export)
    _add_explore(p_export)


def _capture_arguments(p_capture: Parser) -> None:
    p_capture.add_argument("-o", "--out", default="maskattn-capture", metavar="DIR", help=_h("capture.help.out"))
    p_capture.add_argument("--weights", action="store_true", help=_h("capture.help.weights"))
    _add_lang(p_capture)
    p_capture.add_argument("program", nargs=argparse.REMAINDER, metavar="-- python script.py ARGS",
                           help=_h("capture.help.command"))


def _serve_arguments(p_serve: Parser) -> None:
    p_serve.add_argument("--host", default="127.0.0.1", help=_h("eco.help.host"))
    p_serve.add_argument("--port", type=_int_in(1, 65535, "eco.bad_port"), default=8000, help=_h("eco.help.port"))
    _add_lang(p_serve)
    p_serve.add_argument("app_options", nargs=argparse.REMAINDER, metavar="-- APP-OPTIONS",
                         help=_h("eco.help.app_options"))


def _config_arguments(p_config: Parser) -> None:
    p_config.add_argument("--show", action="store_true", help=_h("eco.help.show"))
    p_config.add_argument("--config-file", dest="config_file", metavar="FILE", default=_UNSET,
                          help=_h("eco.help.config_file"))
    _add_lang(p_config)


def _doctor_arguments(p_doctor: Parser) -> None:
    from maskattn_tui.cli import doctor as doctor_cli  # numpy only when the doctor runs

    doctor_cli.add_arguments(p_doctor, _ENV_LANG, lang_type)


def _probe_arguments(p_probe: Parser) -> None:
    from maskattn_tui.cli import probe as probe_cli  # torch only when the probe runs

    probe_cli.add_arguments(p_probe, _ENV_LANG, lang_type)


def lang_in(argv: list[str]) -> str | None:
    """A --lang given anywhere on the command line, for a message written
    before (or because) the line could not be parsed."""
    for i, arg in enumerate(argv):
        value = arg.partition("=")[2] if arg.startswith("--lang=") else \
            (argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else None)
        if value in LANGS:
            return value
    return None


def settle_options(args, parser: Parser) -> None:
    """Options given before the sub-command: applied when the sub-command
    has them too (one given after it wins), refused when it has not; then
    the defaults of those not given."""
    before = getattr(args, "given_before", ())
    if args.command is not None:
        sub = parser._subparsers._group_actions[0].choices[args.command]
        own = {a.dest for a in sub._actions}
        names = {a.dest: a.option_strings[0] for a in parser._actions if a.option_strings}
        for dest in before:
            if dest in names and dest not in own and dest != "config_file":  # the settings: for every command
                raise UsageError(t("cli.not_for_command", _lang_of(args), option=names[dest], command=args.command))
    for dest, value in DEFAULTS.items():
        if not hasattr(args, dest):
            setattr(args, dest, value)
    if hasattr(args, "given_before"):
        del args.given_before


def _lang_of(args) -> str:
    return getattr(args, "lang", None) or _ENV_LANG


def refuse_contradictions(args) -> None:
    """One step (--step), all steps (--all) and an explore configuration
    (one step of its own) exclude each other: refused, naming both."""
    from maskattn_tui.cli.explore_options import EXPERIMENT_DEST, OPTIONS, PRESET_DEST, SCENARIO_DEST

    lang = _lang_of(args)
    explore = [option for option, dest, _ in OPTIONS.values() if hasattr(args, dest)]
    explore += [option for option, dest in (("--scenario", SCENARIO_DEST), ("--preset", PRESET_DEST),
                                            ("--experiment", EXPERIMENT_DEST)) if hasattr(args, dest)]
    chosen = [option for option, given in (("--step", args.step), ("--all", getattr(args, "all", False))) if given]
    if getattr(args, "mask", None) is not None and (chosen or explore):  # print --mask shows the file alone
        raise UsageError(t("cli.mask_alone", lang, option=(chosen or explore)[0]))
    if len(chosen) == 2:
        raise UsageError(t("cli.step_and_all", lang))
    if chosen and explore:
        raise UsageError(t("cli.contradiction", lang, a=chosen[0], b=explore[0]))
