"""The Textual app: one player state, rendered by thin widgets around the
Rich renderables of `maskattn_tui.render`. Use `make_app(...)`."""

from maskattn_tui.tui.app import MaskattnApp, make_app

__all__ = ["MaskattnApp", "make_app"]
