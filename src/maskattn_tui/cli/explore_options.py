"""The explorer's command-line options, shared by the TUI, `print` and `json`.

    add_explore_arguments(parser)      # adds the options below
    config = config_from_args(args)    # ExploreConfig, or None if none given
    names = lenses_from_args(args)     # lens names, or None if --lens absent
    runs = experiments_from_args(args) # experiment names, or None

Options: one per field of explore.fields (--past P --new N --pad K
--pad-side left|right --no-causal --window W --chunk C --prefix P
--documents L1,L2,... --tree P0,P1,... --temperature T --empty-row POLICY
--seed S), and --scenario FILE --preset NAME --lens NAME --experiment NAME.

Every option defaults to argparse.SUPPRESS, so an option absent from the
command line is absent from `args` - safe when the same options are added to
the main parser and to sub-parsers. Values are converted and checked here
(not by argparse), so a bad value raises MaskattnError (the CLI prints it on
one line and exits 2). Options given on the command line override the
values of a --scenario file (which must be valid on its own). --lens alone does not start explore mode: it
applies to whatever table is shown.

Destinations on `args`: explore_<field> (explore_empty_row for the
empty-row policy), explore_scenario, explore_preset, explore_lens,
explore_experiment. No
Textual or Rich here. --experiment starts explore mode (on the defaults if
nothing else is given)."""

from __future__ import annotations

import argparse
import re

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t

from maskattn_tui.explore.errors import ContextError, field_of
from maskattn_tui.explore.fields import BY_NAME, OPTION_FIELDS, help_params
from maskattn_tui.explore.given import blame_option, convert_option, given_options  # noqa: F401 (re-exported)

TYPE_CHECKING = False  # not `from typing import ...`: --help would load typing for it
if TYPE_CHECKING:
    from maskattn_tui.explore.config import ExploreConfig

# The configuration, the lenses and the experiments are imported where they
# are needed, not here: `print` and `json` of the F12 steps add these options
# to their parsers but use none of them (tests/test_import_hygiene.py).

#: config field -> (option, args destination, kind): derived from explore.fields
OPTIONS = {f.name: (f.flag, f.arg_dest, "flag" if f.const is not None else f.kind) for f in OPTION_FIELDS}
SCENARIO_DEST = "explore_scenario"
PRESET_DEST = "explore_preset"
LENS_DEST = "explore_lens"
EXPERIMENT_DEST = "explore_experiment"


class _Option(argparse.Action):
    """An explore option: stores its value (or `const`, for a flag such as
    --no-causal) like argparse's own actions. Its help text is made when
    argparse first reads it (for --help): it names ranges, defaults and
    choices from the configuration, lens and experiment modules, which a
    command line that does not use these options should not have to load."""

    def __init__(self, option_strings, dest, help_of=None, **kwargs) -> None:
        self._help_of = help_of
        super().__init__(option_strings, dest, **kwargs)

    @property
    def help(self):  # argparse reads action.help
        if self._help is None and self._help_of is not None:
            self._help = self._help_of()
        return self._help

    @help.setter
    def help(self, value) -> None:
        self._help = value

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


def _help_texts(lang: str) -> dict[str, str]:
    """Every option's help text (by destination), in `lang`."""
    from maskattn_tui.explore.api_lens import ALL, LENS_NAMES
    from maskattn_tui.explore.experiments import EXPERIMENTS

    texts = {f.arg_dest: t(f.help_key, lang, **help_params(f)) for f in OPTION_FIELDS}
    texts[SCENARIO_DEST] = t("explore.help.scenario", lang)
    from maskattn_tui.explore.patterns import PRESETS

    texts[PRESET_DEST] = t("explore.help.preset", lang, choices=", ".join(
        f"{name} ({t(f'explore.preset.{name}', lang)})" for name in PRESETS))
    texts[LENS_DEST] = t("explore.help.lens", lang, choices=", ".join((*LENS_NAMES, ALL)))
    texts[EXPERIMENT_DEST] = t("explore.help.experiment", lang, choices=", ".join((*EXPERIMENTS, ALL)))
    return texts


def add_explore_arguments(parser: argparse.ArgumentParser, lang: str = "en") -> None:
    """Add the explore options (as an argument group) to `parser`."""
    g = parser.add_argument_group(t("explore.help.group", lang), t("explore.help.group_description", lang))
    texts: dict[str, str] = {}

    def help_of(dest: str) -> str:
        if not texts:
            texts.update(_help_texts(lang))
        return texts[dest]

    add_field_options(g, OPTION_FIELDS, help_of)
    for option, dest, metavar in (("--scenario", SCENARIO_DEST, "FILE"), ("--preset", PRESET_DEST, "NAME"),
                                  ("--lens", LENS_DEST, "NAME"), ("--experiment", EXPERIMENT_DEST, "NAME")):
        g.add_argument(option, dest=dest, default=argparse.SUPPRESS, action=_Option,
                       help_of=lambda dest=dest: help_of(dest), metavar=metavar)
    accept_dash_lists(parser)


def add_field_options(group, fields, help_of, dest_of=lambda f: f.arg_dest) -> None:
    """One option per field (a flag for a `const` field), stored as typed
    under `dest_of(field)`, absent when not given; `help_of(dest)` is asked
    for its help text only when --help is shown. Also used by the doctor's
    --expect (with explore.fields.MASK_FIELDS)."""
    for f in fields:
        dest = dest_of(f)
        kwargs = dict(nargs=0, const=f.const) if f.const is not None else dict(metavar=f.metavar)
        group.add_argument(f.flag, dest=dest, default=argparse.SUPPRESS, action=_Option,
                           help_of=lambda dest=dest: help_of(dest), **kwargs)


#: What argparse takes for a negative number, widened to a list that starts
#: with one: "--tree -1,0,0" (argparse alone would read -1,0,0 as an option).
_DASH_LIST = re.compile(r"^-\d+([,\s]+[+-]?\d+)*[,\s]*$|^-\d*\.\d+$")


def accept_dash_lists(parser: argparse.ArgumentParser) -> None:
    """Let an option's value be a list starting with a negative number,
    without `=`. argparse keeps this test in `_negative_number_matcher`
    (Python 3.9-3.13); if a later argparse lacks it, `--tree=-1,0,0` still
    works and tests/test_doctor_unify.py says so."""
    if hasattr(parser, "_negative_number_matcher"):
        parser._negative_number_matcher = _DASH_LIST


def explore_requested(args: argparse.Namespace) -> bool:
    """Was any option that starts explore mode given? (--lens does not.)"""
    return (
        hasattr(args, SCENARIO_DEST)
        or hasattr(args, PRESET_DEST)
        or hasattr(args, EXPERIMENT_DEST)
        or any(hasattr(args, dest) for _, dest, _ in OPTIONS.values())
    )


def config_from_args(
    args: argparse.Namespace, base: ExploreConfig | None = None
) -> ExploreConfig | None:
    """The configuration the options describe: the --scenario file (or
    `base`, or the defaults), then --preset's fields (explore.patterns,
    as the panel's preset list sets them), then each given option
    replacing its field.
    None when no explore option was given. Raises MaskattnError naming the
    option (or the file and key) and the problem."""
    if not explore_requested(args):
        return None
    scenario = getattr(args, SCENARIO_DEST, None)
    if scenario:
        from maskattn_tui.explore.scenario_file import load_scenario  # tomllib: only when asked
    else:
        from maskattn_tui.explore.config import ExploreConfig
    config = load_scenario(scenario) if scenario else (base or ExploreConfig())
    if hasattr(args, PRESET_DEST):
        from maskattn_tui.explore.patterns import preset_changes

        try:
            config = config.replace(**preset_changes(getattr(args, PRESET_DEST).strip()))
        except MaskattnError as e:
            raise ContextError("explore_in_option", e, option="--preset") from None
    given = given_options(args, OPTION_FIELDS)
    try:
        return config.replace(**given)
    except MaskattnError as e:
        field = field_of(e)
        if field in given:
            raise blame_option(e, given) from None
        if scenario:
            raise ContextError("explore_in_file", e, file=scenario, toml_key=field or "?") from None
        raise


def lenses_from_args(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The lens names asked for with --lens (comma-separated, or "all"), or
    None when --lens was not given. Unknown names raise MaskattnError."""
    if not hasattr(args, LENS_DEST):
        return None
    from maskattn_tui.explore.api_lens import parse_lens_names

    try:
        return parse_lens_names(getattr(args, LENS_DEST))
    except MaskattnError as e:
        raise ContextError("explore_in_option", e, option="--lens") from None


def experiments_from_args(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The experiment names asked for with --experiment (comma-separated, or
    "all"), or None when it was not given. Unknown names raise MaskattnError."""
    if not hasattr(args, EXPERIMENT_DEST):
        return None
    from maskattn_tui.explore.experiments import parse_experiment_names

    try:
        return parse_experiment_names(getattr(args, EXPERIMENT_DEST))
    except MaskattnError as e:
        raise ContextError("explore_in_option", e, option="--experiment") from None
