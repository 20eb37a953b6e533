"""Values of explore fields given on a command line (an argparse namespace
or anything with the same attributes), converted to each field's kind, and
errors told as the option that caused them. Used by the explorer's options,
the doctor's --expect and the block views of big configurations."""

from __future__ import annotations

from maskattn_tui.errors import MaskattnError

from maskattn_tui.explore.errors import ContextError, field_of
from maskattn_tui.explore.fields import BY_NAME, TextError, parse_text

#: kind of the text expected -> message key (explore.json / explore_patterns.json)
_EXPECTED = {"int": "explore_option_int", "number": "explore_option_number",
             "optional_int": "explore_option_optional_int", "lengths": "explore_option_list",
             "parents": "explore_option_list", "spans": "explore_option_spans", "too_large": "explore_option_too_large"}


def convert_option(field: str, raw: object) -> object:
    """A typed option's text as the field's kind (not yet range-checked);
    bad text raises MaskattnError naming the option."""
    f = BY_NAME[field]
    if f.const is not None or not isinstance(raw, str):
        return raw
    if f.kind == "choice":
        return raw.strip()
    try:
        return parse_text(f, raw)
    except TextError as e:
        raise MaskattnError(_EXPECTED[e.expected], option=f.flag, value=raw) from None


def given_options(args, fields, dest_of=lambda f: f.arg_dest) -> dict[str, object]:
    """{field name: converted value} for each of `fields` given on the command line."""
    return {f.name: convert_option(f.name, getattr(args, dest_of(f))) for f in fields if hasattr(args, dest_of(f))}


def blame_option(error: MaskattnError, given: dict[str, object]) -> MaskattnError:
    """`error` told as "option --X: ..." when its field was given as an option."""
    field = field_of(error)
    return ContextError("explore_in_option", error, option=BY_NAME[field].flag) if field in given else error
