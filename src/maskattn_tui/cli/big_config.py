"""A configuration beyond the explorer's 32 + 32 (scale.explore_big), read
from the command line for `print`, `json` and the app: the explore options
it takes, and one line (exit 2) for those it cannot show by blocks."""

from __future__ import annotations

from maskattn_tui.errors import MaskattnError

from maskattn_tui.cli.explore_options import (EXPERIMENT_DEST, LENS_DEST, OPTION_FIELDS, PRESET_DEST,
                                              SCENARIO_DEST, blame_option, given_options)


def big_config_from_args(args):
    from maskattn_tui.scale.explore_big import big_config

    for dest, option in ((SCENARIO_DEST, "--scenario"), (PRESET_DEST, "--preset"), (LENS_DEST, "--lens"),
                         (EXPERIMENT_DEST, "--experiment")):
        if hasattr(args, dest):
            raise MaskattnError("scale_explore_field", option=option)
    given = given_options(args, OPTION_FIELDS)
    try:
        return big_config(given)
    except MaskattnError as e:
        raise blame_option(e, given) from None


def show_big(args, lang: str, as_json: bool) -> int:
    """`print` / `json` of a big configuration: its blocks and the --row (default
    the last) with --key's cells; --labels checked against its positions."""
    from maskattn_tui.cli.labels import labels_from_args
    from maskattn_tui.scale.explore_print import run

    config = big_config_from_args(args)
    return run(config, lang, as_json, row=getattr(args, "scale_row", None),
               key=getattr(args, "scale_key", None), width=getattr(args, "width", None) or 100,
               ascii=bool(getattr(args, "ascii", False)), labels=labels_from_args(args, config.keys))
