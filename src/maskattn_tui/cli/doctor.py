"""`maskattn-tui doctor`: its arguments and its run. Importing this module
loads neither numpy nor the doctor's engine (so `doctor --help` stays
light); `run` imports them.

    maskattn-tui doctor FILE [--json] [--lang zh|en] [--batch B] [--head H] [--polarity attend|blocked]
        [--float-mask keep|added]
    maskattn-tui doctor --attention-mask 0,0,1,1,1 [--position-ids 0,1,2,3,4] [--past P]
    maskattn-tui doctor FILE --expect [--past P] [--new N] [--pad K] [--pad-side left|right]
        [--no-causal] [--window W] [--chunk C] [--prefix P] [--documents L1,L2,...] [--tree -1,0,0,...]
    maskattn-tui doctor A --against B           (the cells where two masks differ)
    maskattn-tui doctor FILE --config config.json [--layer N] [--past P] [--token-type-ids ...]
        [--attention-mask ...]                   (against each layer's intent: doctor.intent_run)

The --expect options are explore's (explore.fields.MASK_FIELDS, with a saved
mask's wider bounds): the same parse, ranges, combination checks and
messages as `maskattn-tui --past ... --window ...`.

Exit 0: diagnosed (whatever was found; --strict: and no error finding),
or --expect / --against and every cell of every slice matches; 1: some
cell differs (or --strict and an error finding); 2: bad input (one line)."""

from __future__ import annotations

import argparse
import os
import sys

from maskattn_tui.cli.explore_options import accept_dash_lists, add_field_options, blame_option
from maskattn_tui.errors import MaskattnError
from maskattn_tui.doctor.expect_args import EXPECT_FIELDS, described, expect_dest, expect_options, given_expect
from maskattn_tui.i18n import t

#: The largest whole number a list option takes (numpy reads them as int64).
INT64_MAX = (1 << 63) - 1
#: Their help (the doctor's: defaults come from the mask's shape).
HELP_KEYS = {f.name: "no_causal" if f.name == "causal" else f.name for f in EXPECT_FIELDS}


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
    """A comma- or space-separated list of whole numbers >= lo."""
    def convert(value: str) -> tuple[int, ...]:
        parts = value.replace(",", " ").strip(" []").split()
        # Too long before int() is asked (which refuses 4,300 digits with a ValueError).
        if any(p.lstrip("+-").isdigit() and len(p.lstrip("+-")) > 19 for p in parts):
            raise argparse.ArgumentTypeError(t("doctor_read.list_too_big", lang, most=INT64_MAX))
        try:
            numbers = tuple(int(p) for p in parts)
        except ValueError:
            numbers = ()
        if not numbers or min(numbers) < lo:
            raise argparse.ArgumentTypeError(t("doctor.bad_list", lang, value=value, lo=lo))
        if max(numbers) > INT64_MAX:  # numpy holds them as int64
            raise argparse.ArgumentTypeError(t("doctor_read.list_too_big", lang, most=INT64_MAX))
        return numbers
    return convert


def add_arguments(parser: argparse.ArgumentParser, lang: str, lang_type) -> None:
    """The doctor's arguments; `lang_type` checks --lang as the main parser does."""

    def h(key: str, **params) -> str:
        return t(f"doctor.help.{key}", lang, **params)

    parser.add_argument("file", nargs="?", metavar="FILE", help=h("file"))
    parser.add_argument("--json", action="store_true", help=h("json"))
    parser.add_argument("--lang", type=lang_type, help=t("cli.help.lang", lang))
    parser.add_argument("--batch", type=_whole(lang, 0), metavar="B", help=h("batch"))
    parser.add_argument("--head", type=_whole(lang, 0), metavar="H", help=h("head"))
    parser.add_argument("--polarity", choices=("attend", "blocked"), help=h("polarity"))
    parser.add_argument("--key", metavar="NAME", help=t("doctor_read.help.key", lang))
    parser.add_argument("--float-mask", choices=("keep", "added"), help=t("doctor_reading.help.float_mask", lang))
    hf = parser.add_argument_group(h("hf_group"))
    hf.add_argument("--attention-mask", type=_numbers(lang, 0), metavar="0,0,1,...", help=h("attention_mask"))
    hf.add_argument("--position-ids", type=_numbers(lang, 0), metavar="0,1,2,...", help=h("position_ids"))
    mm = parser.add_argument_group(t("scale.help.group", lang))  # FILE.py:NAME (scale.doctor_run)
    mm.add_argument("--q-len", type=_whole(lang, 1), metavar="Q", help=t("scale.help.q_len", lang))
    mm.add_argument("--kv-len", type=_whole(lang, 1), metavar="K", help=t("scale.help.kv_len", lang))
    mm.add_argument("--block", type=_whole(lang, 1), metavar="N", help=t("scale.help.block", lang))
    mm.add_argument("--built-for", type=_numbers(lang, 1), metavar="Q0,K0", help=t("scale.help.built_for", lang))
    mm.add_argument("--built-block", type=_whole(lang, 1), metavar="N", help=t("scale.help.built_block", lang))
    ex = parser.add_argument_group(h("expect_group"))
    ex.add_argument("--expect", action="store_true", help=h("expect"))
    add_field_options(ex, EXPECT_FIELDS, lambda dest: h(HELP_KEYS[dest[len("expect_"):]]), expect_dest)
    it = parser.add_argument_group(t("intent.help.group", lang))  # doctor.intent_run
    it.add_argument("--config", metavar="CONFIG", help=t("intent.help.config", lang))
    it.add_argument("--layer", metavar="N", help=t("intent.help.layer", lang))
    it.add_argument("--token-type-ids", type=_numbers(lang, 0), metavar="0,1,1,...",
                    help=t("intent.help.token_type_ids", lang))
    cap = parser.add_argument_group("capture")  # doctor DIR: a capture folder (maskattn_tui.capture.doctor)
    cap.add_argument("--call", type=_whole(lang, 0), metavar="N", help=t("capture.help.call", lang))
    cap.add_argument("--site", metavar="PATTERN", help=t("capture.help.site", lang))
    parser.add_argument("--strict", action="store_true", help=t("capture.help.strict", lang))
    parser.add_argument("--against", metavar="B", help=t("doctor_slices.help.against", lang))
    accept_dash_lists(parser)


def _check_config(args) -> None:
    """--config goes with a FILE; --layer and --token-type-ids with --config."""
    if args.config is None:
        for dest, option in (("layer", "--layer"), ("token_type_ids", "--token-type-ids")):
            if getattr(args, dest) is not None:
                raise MaskattnError("intent_needs_config", option=option)
        return
    if args.file is None:
        raise MaskattnError("intent_needs_file")
    for f in EXPECT_FIELDS:  # --config states the rule; only --past places the mask
        if f.name != "past" and hasattr(args, expect_dest(f)):
            raise MaskattnError("intent_not_with", option=f.flag)
    for dest, option in (("expect", "--expect"), ("against", "--against"), ("position_ids", "--position-ids")):
        if getattr(args, dest, None) not in (None, False):
            raise MaskattnError("intent_not_with", option=option)


def _check(args) -> None:
    _check_config(args)
    if args.config is not None:
        return
    if args.file is not None and args.attention_mask is not None:
        raise MaskattnError("doctor_both")
    if args.file is None and args.attention_mask is None:
        raise MaskattnError("doctor_neither")
    past_given = hasattr(args, "expect_past")
    if args.attention_mask is None:
        if args.position_ids is not None:
            raise MaskattnError("doctor_needs_hf", option="--position-ids")
        if past_given and not args.expect:
            raise MaskattnError("doctor_needs_expect", option="--past")
    else:
        for dest, option in (("batch", "--batch"), ("head", "--head"), ("expect", "--expect")):
            if getattr(args, dest) is not None and getattr(args, dest) is not False:  # --batch 0 is given too
                raise MaskattnError("doctor_not_with_hf", option=option)
    if not args.expect:
        for f in EXPECT_FIELDS:
            if f.name != "past" and hasattr(args, expect_dest(f)):
                raise MaskattnError("doctor_needs_expect", option=f.flag)


def _mask_mod(args) -> bool:
    """FILE.py:NAME names a mask_mod; --q-len, --kv-len and --block are for it only."""
    from maskattn_tui.scale.mask_mod import is_spec

    spec = is_spec(args.file)
    if not spec:
        for dest, option in (("q_len", "--q-len"), ("kv_len", "--kv-len"), ("block", "--block"),
                             ("built_for", "--built-for"), ("built_block", "--built-block")):
            if getattr(args, dest, None) is not None:
                raise MaskattnError("scale_only_mask_mod", option=option)
    return spec


def _write(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def run(args, lang: str) -> int:
    _check(args)
    if args.float_mask is not None and (args.attention_mask is not None or os.path.isdir(args.file)):
        raise MaskattnError("doctor_float_mask_saved", what=args.file or "--attention-mask")
    if args.file is not None and os.path.isdir(args.file):
        if args.config is not None:
            raise MaskattnError("intent_not_with", option="DIR")
        from maskattn_tui.capture.doctor import run as run_capture

        return run_capture(args, lang)
    for dest, option in (("call", "--call"), ("site", "--site")):
        if getattr(args, dest, None) is not None:
            raise MaskattnError("capture_only_folder", option=option)
    if _mask_mod(args):
        if args.config is not None:
            raise MaskattnError("intent_not_with", option="FILE.py:NAME")
        from maskattn_tui.scale.doctor_run import run as run_mask_mod

        return run_mask_mod(args, lang)
    if args.attention_mask is not None and args.config is None:
        return _run_hf(args, lang)
    from maskattn_tui.doctor.slices import load_all

    array, mask, info = load_all(args.file, args.batch, args.head, args.key)
    if args.config is not None:
        from maskattn_tui.doctor.intent_run import run as run_intent

        return run_intent(array, mask, info, args, lang, _write, _hf_past(args))
    if getattr(args, "against", None) is not None:
        if args.expect:
            raise MaskattnError("doctor_against_expect")
        from maskattn_tui.doctor.against import run_against

        return run_against(array, info, args, lang, _write)
    if args.expect:
        return _run_expect(array, mask, info, args, lang)
    from maskattn_tui.doctor import report
    from maskattn_tui.doctor.diagnosis import diagnose
    from maskattn_tui.doctor.slices import diagnose_slices, distinct_slices, settled, slice_json, slice_lines

    diag = diagnose(mask, args.polarity, info, args.float_mask)
    every = [diag]
    slices = None
    if array.ndim > 2 and args.batch is None and args.head is None:  # every distinct slice, said apart
        groups, left_out = distinct_slices(array)
        if len(groups) > 1 or left_out:
            results = diagnose_slices(array, info, args.polarity, groups, args.float_mask)
            diag = every[0] = diag if args.polarity else settled(diag, results, mask, info, args.float_mask)
            every += [d for _, d in results]
            slices = (results, groups, left_out)
    if args.json:
        _write(report.dumps(report.to_json(diag, info, lang, slices=None if slices is None
                                           else slice_json(slices[0], lang))))
    else:
        text = report.human(diag, info, lang, mask)
        _write(text + ("\n".join(slice_lines(*slices, lang)) + "\n" if slices else ""))
    return 1 if args.strict and any(f.level == "error" for d in every for f in d.findings) else 0


def _run_hf(args, lang: str) -> int:
    from maskattn_tui.doctor import report
    from maskattn_tui.doctor.diagnosis import diagnose
    from maskattn_tui.doctor.hf_pair import hf_pair

    pair = hf_pair(list(args.attention_mask), args.position_ids, _hf_past(args))
    diag = diagnose(pair.table, "attend", pair.info)
    if args.json:
        document = report.to_json(diag, pair.info, lang, pair.findings)
        document["attention_mask"] = list(args.attention_mask)
        document["expected_position_ids"] = list(pair.expected_positions)
        document["packed_documents"] = None if pair.documents is None else [list(d) for d in pair.documents]
        _write(report.dumps(document))
    else:
        _write(report.human(diag, pair.info, lang, pair.table, pair.findings))
    errors = any(f.level == "error" for f in (*diag.findings, *pair.findings))
    return 1 if getattr(args, "strict", False) and errors else 0


def _hf_past(args) -> int | None:
    """--past of a Hugging Face pair: the cache length, checked as --expect's."""
    from maskattn_tui.doctor.expect import ExpectOptions

    given = given_expect(args, [f for f in EXPECT_FIELDS if f.name == "past"])
    if "past" not in given:
        return None
    try:
        return ExpectOptions(past=given["past"], new=1).past
    except MaskattnError as e:
        raise blame_option(e, given) from None


def _run_expect(array, mask, info, args, lang: str) -> int:
    """--expect over every distinct slice chosen (doctor.expect_run)."""
    from maskattn_tui.doctor import report
    from maskattn_tui.doctor.expect import expect, expected_allowed
    from maskattn_tui.doctor.expect_result import ExpectResult
    from maskattn_tui.doctor.expect_run import compare_slices, first_grid, result_lines, results_json
    from maskattn_tui.doctor.representation import classify, used_as

    rows, keys = mask.shape
    options = expect_options((rows, keys), args)
    polarity = args.polarity or "attend"
    results = compare_slices(array, info.path, args.batch, args.head,
                             lambda index, m: expect(m, options, polarity, info.path, args.float_mask), polarity,
                             args.float_mask)
    count = sum(r.comparison.count for r in results)
    told = described(options)
    if args.json:
        first = next((r for r in results if r.comparison.count), results[0])
        _write(report.dumps({
            "schema": "maskattn-doctor-expect/1", "file": info.path, "shape": [rows, keys],
            "representation": used_as(classify(mask, info.path), args.float_mask).kind, "polarity": polarity,
            **ExpectResult.of_slices(options.as_dict(), results).as_json(),
            "slice": list(first.index) or None, "slices": results_json(results) if array.ndim > 2 else None,
        }))
    elif count == 0:
        _write(t("doctor.expect.match", lang, file=info.path, rows=rows, keys=keys, options=told)
               + (t("doctor_slices.all_match", lang, n=sum(len(r.members) for r in results)) if array.ndim > 2 else ""))
    else:
        lines = result_lines(results, info.path, told, rows * keys * sum(len(r.members) for r in results), lang)
        lines += first_grid(array, info.path, results, polarity,
                            lambda index: (lambda r0, r1: expected_allowed(options, (r0, r1))), lang, args.float_mask)
        _write("\n".join(lines))
    return 0 if count == 0 else 1
