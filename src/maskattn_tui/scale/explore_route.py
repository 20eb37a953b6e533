"""Is an explore configuration beyond what the explorer draws cell by cell
(32 + 32 positions, windows and chunks up to 64)? Then `print`, `json` and
the app show it by blocks (scale.explore_big). Light: no numpy here, since
every `print` and `json` command line asks."""

from __future__ import annotations

from maskattn_tui.explore.fields import BY_NAME

#: The explore fields whose explorer bound a big configuration may pass.
WIDER = ("past", "new", "window", "chunk")


def wants_scale(args) -> bool:
    """Some option asks for more than the explorer's own bounds."""
    from maskattn_tui.explore.fields import OPTION_FIELDS
    from maskattn_tui.explore.given import given_options

    given = given_options(args, OPTION_FIELDS)
    for name in WIDER:
        value = given.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > BY_NAME[name].hi:
            return True
    return getattr(args, "scale_row", None) is not None or getattr(args, "scale_key", None) is not None
