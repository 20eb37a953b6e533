"""`maskattn-tui doctor`: its arguments and its run. Importing this module
loads neither numpy nor the doctor's engine (so `doctor --help` stays
light); `run` imports them.

    maskattn-tui doctor FILE [--json] [--lang zh|en] [--batch B] [--head H] [--polarity attend|blocked]
    maskattn-tui doctor --attention-mask 0,0,1,1,1 [--position-ids 0,1,2,3,4] [--past P]
    maskattn-tui doctor FILE --expect [--past P] [--new N] [--pad K] [--pad-side left|right]
        [--no-causal] [--window W] [--chunk C] [--prefix P] [--documents L1,L2,...] [--tree=-1,0,0,...]

Exit 0: diagnosed (whatever was found), or --expect and every cell
matches; 1: --expect and some cell differs; 2: bad input (one line)."""

from __future__ import annotations

import argparse
import sys

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t

#: Options that only --expect reads (destination -> option).
EXPECT_ONLY = {"new": "--new", "pad": "--pad", "pad_side": "--pad-side", "no_causal": "--no-causal",
               "window": "--window", "chunk": "--chunk", "prefix": "--prefix", "documents": "--documents",
               "tree": "--tree"}


def _whole(lang: str, lo: int):
    def convert(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = None
        if number is None or number < lo:
            raise argparse.ArgumentTypeError(t("doctor.bad_whole", lang, value=value, lo=lo))
        return number
    return convert


def _numbers(lang: str, lo: int):
    """A comma- or space-separated list of whole numbers >= lo ("R" = -1)."""
    def convert(value: str) -> tuple[int, ...]:
        parts = value.replace(",", " ").strip(" []").split()
        try:
            numbers = tuple(-1 if p in ("R", "r") else int(p) for p in parts)
        except ValueError:
            numbers = ()
        if not numbers or min(numbers) < lo:
            raise argparse.ArgumentTypeError(t("doctor.bad_list", lang, value=value, lo=lo))
        return numbers
    return convert


def add_arguments(parser: argparse.ArgumentParser, lang: str) -> None:
    from maskattn_tui.cli.parser import _lang

    def h(key: str, **params) -> str:
        return t(f"doctor.help.{key}", lang, **params)

    parser.add_argument("file", nargs="?", metavar="FILE", help=h("file"))
    parser.add_argument("--json", action="store_true", help=h("json"))
    parser.add_argument("--lang", type=_lang, help=t("cli.help.lang", lang))
    parser.add_argument("--batch", type=_whole(lang, 0), metavar="B", help=h("batch"))
    parser.add_argument("--head", type=_whole(lang, 0), metavar="H", help=h("head"))
    parser.add_argument("--polarity", choices=("attend", "blocked"), help=h("polarity"))
    hf = parser.add_argument_group(h("hf_group"))
    hf.add_argument("--attention-mask", type=_numbers(lang, 0), metavar="0,0,1,...", help=h("attention_mask"))
    hf.add_argument("--position-ids", type=_numbers(lang, 0), metavar="0,1,2,...", help=h("position_ids"))
    hf.add_argument("--past", type=_whole(lang, 0), metavar="P", help=h("past"))
    ex = parser.add_argument_group(h("expect_group"))
    ex.add_argument("--expect", action="store_true", help=h("expect"))
    ex.add_argument("--new", type=_whole(lang, 1), metavar="N", help=h("new"))
    ex.add_argument("--pad", type=_whole(lang, 0), metavar="K", help=h("pad"))
    ex.add_argument("--pad-side", choices=("left", "right"), help=h("pad_side"))
    ex.add_argument("--no-causal", action="store_true", help=h("no_causal"))
    ex.add_argument("--window", type=_whole(lang, 1), metavar="W", help=h("window"))
    ex.add_argument("--chunk", type=_whole(lang, 1), metavar="C", help=h("chunk"))
    ex.add_argument("--prefix", type=_whole(lang, 0), metavar="P", help=h("prefix"))
    ex.add_argument("--documents", type=_numbers(lang, 1), metavar="L1,L2,...", help=h("documents"))
    ex.add_argument("--tree", type=_numbers(lang, -1), metavar="PARENTS", help=h("tree"))


def _check(args) -> None:
    if args.file is not None and args.attention_mask is not None:
        raise MaskattnError("doctor_both")
    if args.file is None and args.attention_mask is None:
        raise MaskattnError("doctor_neither")
    if args.attention_mask is None:
        if args.position_ids is not None:
            raise MaskattnError("doctor_needs_hf", option="--position-ids")
        if args.past is not None and not args.expect:
            raise MaskattnError("doctor_needs_expect", option="--past")
    else:
        for dest, option in (("batch", "--batch"), ("head", "--head"), ("expect", "--expect")):
            if getattr(args, dest):
                raise MaskattnError("doctor_not_with_hf", option=option)
    if not args.expect:
        for dest, option in EXPECT_ONLY.items():
            if getattr(args, dest) not in (None, False):
                raise MaskattnError("doctor_needs_expect", option=option)


def _write(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def run(args, lang: str) -> int:
    _check(args)
    if args.attention_mask is not None:
        return _run_hf(args, lang)
    from maskattn_tui.doctor.read import load_mask

    mask, info = load_mask(args.file, args.batch, args.head)
    if args.expect:
        return _run_expect(mask, info, args, lang)
    from maskattn_tui.doctor import report
    from maskattn_tui.doctor.diagnose import diagnose

    diag = diagnose(mask, args.polarity, info)
    _write(report.dumps(report.to_json(diag, info, lang)) if args.json else report.human(diag, info, lang, mask))
    return 0


def _run_hf(args, lang: str) -> int:
    from maskattn_tui.doctor import report
    from maskattn_tui.doctor.diagnose import diagnose
    from maskattn_tui.doctor.hf_pair import hf_pair

    pair = hf_pair(list(args.attention_mask), args.position_ids, args.past)
    diag = diagnose(pair.table, "attend", pair.info)
    if args.json:
        document = report.to_json(diag, pair.info, lang, pair.findings)
        document["attention_mask"] = list(args.attention_mask)
        document["expected_position_ids"] = list(pair.expected_positions)
        _write(report.dumps(document))
    else:
        _write(report.human(diag, pair.info, lang, pair.table, pair.findings))
    return 0


def _run_expect(mask, info, args, lang: str) -> int:
    from maskattn_tui.doctor import report
    from maskattn_tui.doctor.expect import ExpectOptions, expect
    from maskattn_tui.doctor.representation import Reading, classify

    rows, keys = mask.shape
    new = rows if args.new is None else args.new
    past = keys - new if args.past is None else args.past
    options = ExpectOptions(past=past, new=new, pad=args.pad or 0, pad_side=args.pad_side or "left",
                            causal=not args.no_causal, window=args.window, chunk=args.chunk, prefix=args.prefix,
                            documents=args.documents, tree=args.tree)
    polarity = args.polarity or "attend"
    result = expect(mask, options, polarity, info.path)
    rep = classify(mask, info.path)
    reading = Reading(mask, rep, polarity)
    shown = [bool(reading.band(r, r + 1)[0, k]) for r, k in result.cells]
    extra = [list(c) for c, s in zip(result.cells, shown) if s]
    missing = [list(c) for c, s in zip(result.cells, shown) if not s]
    described = _described(options)
    if args.json:
        _write(report.dumps({
            "schema": "maskattn-doctor-expect/1", "file": info.path, "shape": [rows, keys],
            "representation": rep.kind, "polarity": polarity, "expected": options.as_dict(),
            "match": result.count == 0, "differs": [list(c) for c in result.cells], "differs_count": result.count,
            "shown_but_hidden": extra, "hidden_but_shown": missing,
        }))
    elif result.count == 0:
        _write(t("doctor.expect.match", lang, file=info.path, rows=rows, keys=keys, options=described))
    else:
        lines = [t("doctor.expect.differs", lang, file=info.path, count=result.count, total=rows * keys,
                   options=described)]
        if extra:
            lines.append(t("doctor.expect.extra", lang, cells=report.cells_text(extra, len(extra))))
        if missing:
            lines.append(t("doctor.expect.missing", lang, cells=report.cells_text(missing, len(missing))))
        if result.count > len(result.cells):
            lines.append(t("doctor.expect.more", lang, more=result.count - len(result.cells)))
        _write("\n".join(lines))
    return 0 if result.count == 0 else 1


def _described(options) -> str:
    parts = [f"--past {options.past}", f"--new {options.new}"]
    if options.pad:
        parts.append(f"--pad {options.pad} --pad-side {options.pad_side}")
    if not options.causal:
        parts.append("--no-causal")
    for name in ("window", "chunk", "prefix"):
        if getattr(options, name) is not None:
            parts.append(f"--{name} {getattr(options, name)}")
    for name in ("documents", "tree"):
        if getattr(options, name) is not None:
            parts.append(f"--{name}=" + ",".join(map(str, getattr(options, name))))
    return " ".join(parts)
