"""Explore mode's pure core: your own masks, the chapter's experiments, the
API lens and scenario files (the command-line options are in cli.explore_options). No Textual, no Rich.

    from maskattn_tui.explore import ExploreConfig, explore_view
    config = ExploreConfig(past=3, new=2, pad=1, pad_side="left")
    view = explore_view(config)            # a foundation StepView (1 step)
    offset_bug(config).hidden              # cells the row-number table hides
    lenses(config.table(), "all", "zh")    # how each API spells the table

Modules: config (ExploreConfig, the layout and generated inputs), view
(evaluate, to_spec, explore_view), experiments, api_lens, scenario_file,
errors (ContextError)."""

from importlib import import_module

#: Where each public name lives. Imported on first use (PEP 562), so that
#: `maskattn-tui print` of the F12 steps does not load the scenario-file
#: reader (tomllib) or the API lens just because the CLI adds these options.
_HOMES = {
    "LENS_NAMES": "api_lens", "lens": "api_lens", "lenses": "api_lens", "parse_lens_names": "api_lens",
    "ExploreConfig": "config", "generate_inputs": "config",
    "ContextError": "errors",
    "EXPERIMENTS": "experiments", "causal_off": "experiments", "experiment_data": "experiment_runs",
    "leak_probe": "experiments", "offset_bug": "experiments", "parse_experiment_names": "experiments",
    "polarity_bug": "experiments", "run_experiment": "experiment_runs",
    "dumps_scenario": "scenario_file", "load_scenario": "scenario_file", "loads_scenario": "scenario_file",
    "save_scenario": "scenario_file",
    "evaluate": "view", "explore_view": "view", "to_spec": "view",
}


def __getattr__(name: str):
    if name in _HOMES:
        value = getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EXPERIMENTS",
    "LENS_NAMES",
    "ContextError",
    "ExploreConfig",
    "causal_off",
    "dumps_scenario",
    "evaluate",
    "experiment_data",
    "explore_view",
    "generate_inputs",
    "leak_probe",
    "lens",
    "lenses",
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
