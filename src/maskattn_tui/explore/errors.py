"""Errors of the explorer that say *where* a problem came from.

Validation inside `ExploreConfig` raises plain `MaskattnError`s whose params
carry `field` (the configuration field, which is also the scenario-file key).
When the value came from a scenario file or a command-line option, it is
re-raised as a `ContextError`: the same problem, told with the file and key
(or the option) in front, in either language."""

from __future__ import annotations

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t


class ContextError(MaskattnError):
    """`inner` (a MaskattnError) told with its context, e.g.
    ``scenario.toml, key 'past': past must be ...`` or ``option --past: ...``.

    `context` is a message key (without the ``error.`` prefix) whose template
    has a ``{problem}`` placeholder; `where` fills its other placeholders."""

    def __init__(self, context: str, inner: MaskattnError, **where: object) -> None:
        self.inner = inner
        super().__init__(context, **where)

    def message(self, lang: str) -> str:
        return t(f"error.{self.key}", lang, problem=self.inner.message(lang), **self.params)


def field_of(error: MaskattnError) -> str | None:
    """The configuration field an error is about, if it says (matrix
    errors from the engine call it `name`)."""
    field = error.params.get("field", error.params.get("name"))
    return str(field) if field is not None else None
