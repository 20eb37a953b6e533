"""Explore mode's pure core: your own masks, the chapter's experiments, the
API lens, scenario files and the command-line options. No Textual, no Rich.

    from maskattn_tui.explore import ExploreConfig, explore_view
    config = ExploreConfig(past=3, new=2, pad=1, pad_side="left")
    view = explore_view(config)            # a foundation StepView (1 step)
    offset_bug(config).hidden              # cells the row-number table hides
    lenses(config.table(), "all", "zh")    # how each API spells the table

Modules: config (ExploreConfig, the layout and generated inputs), view
(evaluate, to_spec, explore_view), experiments, api_lens, scenario_file,
options (argparse), errors (ContextError)."""

from maskattn_tui.explore.api_lens import LENS_NAMES, lens, lenses, parse_lens_names
from maskattn_tui.explore.config import ExploreConfig, generate_inputs
from maskattn_tui.explore.errors import ContextError
from maskattn_tui.explore.experiments import (
    EXPERIMENTS,
    causal_off,
    experiment_data,
    leak_probe,
    offset_bug,
    parse_experiment_names,
    polarity_bug,
    run_experiment,
)
from maskattn_tui.explore.options import (
    add_explore_arguments,
    config_from_args,
    experiments_from_args,
    lenses_from_args,
)
from maskattn_tui.explore.scenario_file import (
    dumps_scenario,
    load_scenario,
    loads_scenario,
    save_scenario,
)
from maskattn_tui.explore.view import evaluate, explore_view, to_spec

__all__ = [
    "EXPERIMENTS",
    "LENS_NAMES",
    "ContextError",
    "ExploreConfig",
    "add_explore_arguments",
    "causal_off",
    "config_from_args",
    "dumps_scenario",
    "evaluate",
    "experiment_data",
    "experiments_from_args",
    "explore_view",
    "generate_inputs",
    "leak_probe",
    "lens",
    "lenses",
    "lenses_from_args",
    "load_scenario",
    "loads_scenario",
    "offset_bug",
    "parse_experiment_names",
    "parse_lens_names",
    "polarity_bug",
    "run_experiment",
    "save_scenario",
    "to_spec",
]
