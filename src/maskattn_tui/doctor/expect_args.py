"""The doctor's --expect options read from a command line (an argparse
namespace): explore's mask fields (explore.fields.MASK_FIELDS) stored as
expect_<field>, with a saved mask's defaults, and told back as flags. Used by
the doctor's command line, a capture folder's --expect and a mask_mod's."""

from __future__ import annotations

from maskattn_tui.errors import MaskattnError

from maskattn_tui.explore.fields import MASK_FIELDS, shown_text
from maskattn_tui.explore.given import blame_option, given_options

#: The --expect options: explore's mask fields, stored as expect_<field>.
EXPECT_FIELDS = MASK_FIELDS


def expect_dest(field) -> str:
    return f"expect_{field.name}"


def given_expect(args, fields=EXPECT_FIELDS) -> dict[str, object]:
    return given_options(args, fields, expect_dest)


def expect_options(shape: tuple[int, int], args):
    """The --expect options given, over the mask's defaults: --new its rows,
    --past its keys minus --new and --cache-slots."""
    from maskattn_tui.doctor.expect import ExpectOptions

    rows, keys = shape
    given = given_expect(args)
    values = {"new": rows, **given}
    if "past" not in values and isinstance(values["new"], int):
        slots = values.get("cache_slots", 0)
        slots = slots if isinstance(slots, int) and not isinstance(slots, bool) else 0
        values["past"] = max(0, keys - values["new"] - slots)  # a mismatch is told as one of shape
    try:
        return ExpectOptions(**values)
    except MaskattnError as e:
        raise blame_option(e, given) from None


def described(options) -> str:
    """The options as a command line would give them (explore's flags):
    past and new always, the others when not their defaults."""
    parts = []
    for f in EXPECT_FIELDS:
        value = getattr(options, f.name)
        if f.name not in ("past", "new") and (value == f.default or f.name == "pad_side" and not options.pad):
            continue
        parts.append(f.flag if f.const is not None else f"{f.flag} {shown_text(f, value)}")
    return " ".join(parts)


def _spans(runs, stop: int) -> tuple[tuple[int, int], ...] | None:
    """Half-open runs [a, b) cut at `stop`, as inclusive (a, b - 1)."""
    out = tuple((a, min(b, stop) - 1) for a, b in runs if a < stop)
    return out or None


def _covered(runs, a: int, b: int) -> bool:
    """Do the runs [x, y) cover [a, b)?"""
    for x, y in sorted(runs):
        if x <= a < y:
            a = y
    return a >= b


def _sinks_of(rule) -> int | None:
    """K when the rule's global keys are attention sinks --sinks K states:
    one causal run from the first real token, beside a window or chunks."""
    if len(rule.globals) != 1 or not rule.causal or rule.window is rule.chunk is None:
        return None
    (a, b), = rule.globals
    return b - a if a == rule.chunk_origin else None


def options_of_reading(rule):
    """The --expect options that state a reading of the doctor (a
    doctor.rules.Rule), or None when explore's fields cannot state it: the
    inverse of ExpectOptions.rule (tests/test_expect_families.py checks the
    round trip on every family)."""
    from maskattn_tui.doctor.expect import ExpectOptions

    sinks = _sinks_of(rule)
    if (rule.globals and sinks is None) or rule.pad_rows:
        return None  # global keys, blank PAD rows: no explore field states them
    filled = rule.keys if rule.tree is not None else min(rule.keys, rule.offset + rule.rows)
    slots = rule.keys - filled  # keys after the last query's position: unused cache slots
    values: dict[str, object] = dict(past=rule.offset, new=rule.rows, causal=rule.causal, chunk=rule.chunk,
                                     prefix=rule.prefix, documents=rule.documents, tree=rule.tree,
                                     cache_slots=slots, sinks=sinks)
    gaps = list(rule.gaps)
    if rule.pad and rule.pad_side == "left":
        values.update(pad=rule.pad)
    elif rule.pad and not slots:
        values.update(pad=rule.pad, pad_side="right")
    elif rule.pad:
        gaps.append((rule.keys - rule.pad, rule.keys))  # right PAD before the slots: PAD keys
    if slots and not rule.causal and not _covered(gaps, filled, rule.keys):
        return None  # keys after the queries that some row sees: no static cache
    values["pad_keys"] = _spans(sorted(gaps), filled)
    values["bidirectional"] = _spans(rule.blocks, filled)
    if rule.window is not None and not rule.causal:
        left = rule.window - 1
        values.update(window=left, window_right=None if rule.right_width == left else rule.right_width)
    else:
        values["window"] = rule.window
    try:
        options = ExpectOptions(**values)
    except MaskattnError:
        return None
    return options if options.keys == rule.keys else None  # (more rows than keys: no past + new states it)


def reading_flags(rule) -> str | None:
    """"--past 5 --new 3 --cache-slots 4": a reading as --expect flags."""
    options = options_of_reading(rule)
    return None if options is None else described(options)
