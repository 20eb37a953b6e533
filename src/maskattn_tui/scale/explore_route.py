"""Is an explore configuration beyond what the explorer draws cell by cell
(32 + 32 positions, windows and chunks up to 64)? Then `print`, `json` and
the app show it by blocks (scale.explore_big). Light: no numpy here, since
every `print` and `json` command line asks."""

from __future__ import annotations

from maskattn_tui.explore.fields import BY_NAME

#: The explore fields whose explorer bound a big configuration may pass.
WIDER = ("past", "new", "window", "chunk")


def wants_scale(args, explorer_only: tuple[str, ...] = ()) -> bool:
    """Some option is outside the explorer's own bounds (beyond them: blocks).
    A value below the explorer's floor goes there too, so that its refusal
    states the range the command line takes, unless an option only the
    explorer takes (`explorer_only`: --preset, --experiment...) was given."""
    from maskattn_tui.explore.fields import OPTION_FIELDS
    from maskattn_tui.explore.given import given_options

    given = given_options(args, OPTION_FIELDS)
    for name in WIDER:
        value = given.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        if value > BY_NAME[name].hi or value < BY_NAME[name].lo and not any(hasattr(args, d) for d in explorer_only):
            return True
    return getattr(args, "scale_row", None) is not None or getattr(args, "scale_key", None) is not None
