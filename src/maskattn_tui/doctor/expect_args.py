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
