"""Errors the user can cause, each with a message key so that it can be told
in either language (str() gives English)."""

from __future__ import annotations

from maskattn_tui.i18n import DEFAULT_LANG, t


class MaskattnError(ValueError):
    """Bad input: a clear message, never a traceback."""

    def __init__(self, key: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(self.message(DEFAULT_LANG))

    def message(self, lang: str) -> str:
        return t(f"error.{self.key}", lang, **self.params)


class EmptyRowError(MaskattnError):
    """A query row has no visible key and the policy is `error`."""
