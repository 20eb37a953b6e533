"""The command table's rows (model.commands) as Textual bindings, for the
figure's screen and mask mode's alike (`binding`); and what the explore
panel reads to label its ticks with their keys: which of its experiments
have a key (EXPLORE_BINDINGS), a command by its binding id ("x.lens",
"x.leak_probe", ...) and how its key is shown."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

from maskattn_tui.i18n import t
from maskattn_tui.model.commands import BY_ID, COMMANDS, Command


def binding(command: Command, target: str = "") -> Binding:
    """The command's binding, its action run on `target` ("app." or the
    screen's own: ""). The English description is what Textual's own key
    panel shows; our footer and help translate it live through the table."""
    return Binding(command.keys, target + command.action, t(command.help, "en"), show=False,
                   key_display=command.display, id=command.id)

#: Explore mode's keys as the panel names them ("x.<command id>").
EXPLORE_IDS = ("explore", "save", "open", "leak_probe", "offset_bug", "polarity_bug", "causal_off",
               "window_off_by_one", "positions_only", "chunk_history", "lens", "leave")


@dataclass(frozen=True)
class BoundKey:
    """A command of the table under the panel's id for it."""

    id: str
    command: Command


EXPLORE_BINDINGS: tuple[BoundKey, ...] = tuple(
    BoundKey(f"x.{c.id}", c) for c in COMMANDS if c.id in EXPLORE_IDS)


def wear(app, theme: str | None = None, commands: tuple[Command, ...] | None = None) -> None:
    """The settings file's look on an app from make_app: one of Textual's
    themes, and the command table with the user's keys (model.commands.
    remapped): bound by id with App.set_keymap, and kept as `app.commands`,
    which the footer, help, palette and explore panel read."""
    if theme is not None:
        app.theme = theme
    if commands is not None and commands != COMMANDS:
        app.commands = commands
        app.set_keymap({c.id: c.keys for c in commands})


def by_id(binding_id: str, commands: tuple[Command, ...] | None = None) -> Command:
    """The command of a binding id; from `commands` (the table with the user's keys) when given."""
    id = binding_id.removeprefix("x.")
    return BY_ID[id] if commands is None else next(c for c in commands if c.id == id)


def key_text(command: Command, ascii: bool = False) -> str:
    """How the key is shown; with `ascii`, arrows are spelled by key name."""
    if ascii and not command.display.isascii():
        return command.keys.split(",")[0]
    return command.display
