"""`maskattn-tui probe`: its arguments and its run. The model comes from
exactly one of FILE.py:NAME, --config, --model (probe.load), or --replay
DIR names a capture folder to re-run through every attention path here
(probe.replay). Exit 0 when every invariance held (every replayed row
agreed), 1 when one broke, 2 for bad input. A progress line per
invariance goes to stderr, on a terminal only. torch is imported only
once the command runs (--help stays light)."""

from __future__ import annotations

import argparse
import sys

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t


def add_arguments(parser: argparse.ArgumentParser, lang: str, lang_type) -> None:
    def h(key: str) -> str:
        return t(f"probe.help.{key}", lang)

    from maskattn_tui.probe.load import DTYPES

    parser.add_argument("target", nargs="?", metavar="FILE.py:NAME", help=h("target"))
    parser.add_argument("--config", metavar="config.json", help=h("config"))
    parser.add_argument("--model", metavar="DIR", help=h("model"))
    parser.add_argument("--replay", metavar="DIR", help=h("replay"))
    parser.add_argument("--only", metavar="NAMES", help=h("only"))
    parser.add_argument("--keep", metavar="DIR", help=h("keep"))
    parser.add_argument("--tokens", type=_tokens(lang), default=12, metavar="N", help=h("tokens"))
    parser.add_argument("--seed", type=_tokens(lang, 0), default=0, metavar="S", help=h("seed"))
    parser.add_argument("--dtype", choices=DTYPES, default="float32", help=h("dtype"))
    parser.add_argument("--attn-implementation", metavar="NAME", help=h("attn_implementation"))
    parser.add_argument("--json", action="store_true", help=h("json"))
    parser.add_argument("--lang", type=lang_type, help=t("cli.help.lang", lang))


def _tokens(lang: str, lo: int = 4):
    def convert(value: str) -> int:
        if not value.isdigit() or not lo <= int(value) <= 4096:
            raise argparse.ArgumentTypeError(t("probe.bad_number", lang, value=value, lo=lo))
        return int(value)
    return convert


def _source(args) -> str:
    given = [name for name, value in (("FILE.py:NAME", args.target), ("--config", args.config),
                                      ("--model", args.model), ("--replay", args.replay)) if value is not None]
    if len(given) != 1:
        raise MaskattnError("probe_one_source", given=", ".join(given) or "-")
    if args.replay is not None:
        for option, given_value in (("--only", args.only), ("--keep", args.keep),
                                    ("--attn-implementation", args.attn_implementation)):
            if given_value is not None:
                raise MaskattnError("probe_not_with_replay", option=option)
    return given[0]


def _progress(lang: str):
    if not sys.stderr.isatty():
        return None

    def show(name: str, index: int, total: int) -> None:
        sys.stderr.write(t("probe.progress", lang, name=name, index=index, total=total) + "\n")
        sys.stderr.flush()
    return show


def run(args, lang: str) -> int:
    source = _source(args)
    if source == "--replay":
        from maskattn_tui.probe.replay import run as replay

        return replay(args.replay, args.seed, lang, args.json)
    from maskattn_tui.probe import load
    from maskattn_tui.probe.report import only_names

    only_names(args.only)  # a bad name: one line before any model is built
    ids = mask = None
    if source == "--config":
        model = load.from_config(args.config, args.seed, args.dtype, args.attn_implementation)
    elif source == "--model":
        model = load.from_folder(args.model, args.dtype, args.attn_implementation)
    else:
        model, ids, mask = load.from_function(args.target)
    if ids is None:
        ids = load.random_ids(model, args.tokens, args.seed)
    from maskattn_tui.probe.runner import probe

    report = probe(model, ids, mask, only=args.only, keep=args.keep, seed=args.seed, progress=_progress(lang))
    if args.json:
        from maskattn_tui import strict_json

        sys.stdout.write(strict_json.dumps(report.to_json(lang)) + "\n")
    else:
        from maskattn_tui.probe.report import lines

        sys.stdout.write("\n".join(lines(report, lang)) + "\n")
    return report.exit_code
