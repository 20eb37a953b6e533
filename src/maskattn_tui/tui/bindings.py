"""What the explore panel reads to label its ticks with their keys: a
command of the table (model.commands) by its old binding id ("x.lens",
"x.leak_probe", ...) and how its key is shown."""

from __future__ import annotations

from maskattn_tui.model.commands import BY_ID, Command


def by_id(binding_id: str) -> Command:
    return BY_ID[binding_id.removeprefix("x.")]


def key_text(command: Command, ascii: bool = False) -> str:
    """How the key is shown; with `ascii`, arrows are spelled by key name."""
    if ascii and not command.display.isascii():
        return command.keys.split(",")[0]
    return command.display
