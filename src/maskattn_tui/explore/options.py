"""The explorer's command-line options, shared by the TUI, `print` and `json`.

    add_explore_arguments(parser)      # adds the options below
    config = config_from_args(args)    # ExploreConfig, or None if none given
    names = lenses_from_args(args)     # lens names, or None if --lens absent
    runs = experiments_from_args(args) # experiment names, or None

Options: --past P --new N --pad K --pad-side left|right --no-causal
--temperature T --empty-row POLICY --seed S --scenario FILE --lens NAME
--experiment NAME.

Every option defaults to argparse.SUPPRESS, so an option absent from the
command line is absent from `args` - safe when the same options are added to
the main parser and to sub-parsers. Values are converted and checked here
(not by argparse), so a bad value raises MaskattnError (the CLI prints it on
one line and exits 2). Options given on the command line override the
values of a --scenario file (which must be valid on its own). --lens alone does not start explore mode: it
applies to whatever table is shown.

Destinations on `args`: explore_past, explore_new, explore_pad,
explore_pad_side, explore_causal, explore_temperature, explore_empty_row,
explore_seed, explore_scenario, explore_lens, explore_experiment. No
Textual or Rich here. --experiment starts explore mode (on the defaults if
nothing else is given)."""

from __future__ import annotations

import argparse

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.softmax import EMPTY_ROW_POLICIES

from maskattn_tui.explore.api_lens import ALL, LENS_NAMES, parse_lens_names
from maskattn_tui.explore.config import (
    NEW_RANGE,
    PAD_SIDES,
    PAST_RANGE,
    SEED_RANGE,
    TEMPERATURE_RANGE,
    ExploreConfig,
)
from maskattn_tui.explore.errors import ContextError, field_of
from maskattn_tui.explore.experiments import EXPERIMENTS, parse_experiment_names

#: config field -> (option, args destination, converter kind)
OPTIONS = {
    "past": ("--past", "explore_past", "int"),
    "new": ("--new", "explore_new", "int"),
    "pad": ("--pad", "explore_pad", "int"),
    "pad_side": ("--pad-side", "explore_pad_side", "text"),
    "causal": ("--no-causal", "explore_causal", "flag"),
    "temperature": ("--temperature", "explore_temperature", "number"),
    "empty_row_policy": ("--empty-row", "explore_empty_row", "text"),
    "seed": ("--seed", "explore_seed", "int"),
}
SCENARIO_DEST = "explore_scenario"
LENS_DEST = "explore_lens"
EXPERIMENT_DEST = "explore_experiment"


def add_explore_arguments(parser: argparse.ArgumentParser, lang: str = "en") -> None:
    """Add the explore options (as an argument group) to `parser`."""
    d = ExploreConfig()
    g = parser.add_argument_group(t("explore.help.group", lang), t("explore.help.group_description", lang))
    S = argparse.SUPPRESS
    g.add_argument("--past", metavar="P", dest="explore_past", default=S,
                   help=t("explore.help.past", lang, lo=PAST_RANGE[0], hi=PAST_RANGE[1], default=d.past))
    g.add_argument("--new", metavar="N", dest="explore_new", default=S,
                   help=t("explore.help.new", lang, lo=NEW_RANGE[0], hi=NEW_RANGE[1], default=d.new))
    g.add_argument("--pad", metavar="K", dest="explore_pad", default=S,
                   help=t("explore.help.pad", lang, default=d.pad))
    g.add_argument("--pad-side", metavar="|".join(PAD_SIDES), dest="explore_pad_side", default=S,
                   help=t("explore.help.pad_side", lang, default=d.pad_side))
    g.add_argument("--no-causal", dest="explore_causal", action="store_const", const=False, default=S,
                   help=t("explore.help.no_causal", lang))
    g.add_argument("--temperature", metavar="T", dest="explore_temperature", default=S,
                   help=t("explore.help.temperature", lang, lo=f"{TEMPERATURE_RANGE[0]:g}",
                          hi=f"{TEMPERATURE_RANGE[1]:g}", default=f"{d.temperature:g}"))
    g.add_argument("--empty-row", metavar="POLICY", dest="explore_empty_row", default=S,
                   help=t("explore.help.empty_row", lang, choices=", ".join(EMPTY_ROW_POLICIES),
                          default=d.empty_row_policy))
    g.add_argument("--seed", metavar="S", dest="explore_seed", default=S,
                   help=t("explore.help.seed", lang, lo=SEED_RANGE[0], hi=SEED_RANGE[1], default=d.seed))
    g.add_argument("--scenario", metavar="FILE", dest=SCENARIO_DEST, default=S,
                   help=t("explore.help.scenario", lang))
    g.add_argument("--lens", metavar="NAME", dest=LENS_DEST, default=S,
                   help=t("explore.help.lens", lang, choices=", ".join((*LENS_NAMES, ALL))))
    g.add_argument("--experiment", metavar="NAME", dest=EXPERIMENT_DEST, default=S,
                   help=t("explore.help.experiment", lang, choices=", ".join((*EXPERIMENTS, ALL))))


def _convert(field: str, raw: object) -> object:
    option, _, kind = OPTIONS[field]
    if kind == "flag" or not isinstance(raw, str):
        return raw
    text = raw.strip()
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise MaskattnError("explore_option_int", option=option, value=raw) from None
    if kind == "number":
        try:
            return float(text)
        except ValueError:
            raise MaskattnError("explore_option_number", option=option, value=raw) from None
    return text


def explore_requested(args: argparse.Namespace) -> bool:
    """Was any option that starts explore mode given? (--lens does not.)"""
    return (
        hasattr(args, SCENARIO_DEST)
        or hasattr(args, EXPERIMENT_DEST)
        or any(hasattr(args, dest) for _, dest, _ in OPTIONS.values())
    )


def config_from_args(
    args: argparse.Namespace, base: ExploreConfig | None = None
) -> ExploreConfig | None:
    """The configuration the options describe: the --scenario file (or
    `base`, or the defaults) with each given option replacing its field.
    None when no explore option was given. Raises MaskattnError naming the
    option (or the file and key) and the problem."""
    if not explore_requested(args):
        return None
    scenario = getattr(args, SCENARIO_DEST, None)
    if scenario:
        from maskattn_tui.explore.scenario_file import load_scenario  # tomllib: only when asked
    config = load_scenario(scenario) if scenario else (base or ExploreConfig())
    given = {field: getattr(args, dest) for field, (_, dest, _) in OPTIONS.items() if hasattr(args, dest)}
    changes = {field: _convert(field, raw) for field, raw in given.items()}
    try:
        return config.replace(**changes)
    except MaskattnError as e:
        field = field_of(e)
        if field in given:
            raise ContextError("explore_in_option", e, option=OPTIONS[field][0]) from None
        if scenario:
            raise ContextError("explore_in_file", e, file=scenario, toml_key=field or "?") from None
        raise


def lenses_from_args(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The lens names asked for with --lens (comma-separated, or "all"), or
    None when --lens was not given. Unknown names raise MaskattnError."""
    if not hasattr(args, LENS_DEST):
        return None
    try:
        return parse_lens_names(getattr(args, LENS_DEST))
    except MaskattnError as e:
        raise ContextError("explore_in_option", e, option="--lens") from None


def experiments_from_args(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The experiment names asked for with --experiment (comma-separated, or
    "all"), or None when it was not given. Unknown names raise MaskattnError."""
    if not hasattr(args, EXPERIMENT_DEST):
        return None
    try:
        return parse_experiment_names(getattr(args, EXPERIMENT_DEST))
    except MaskattnError as e:
        raise ContextError("explore_in_option", e, option="--experiment") from None
