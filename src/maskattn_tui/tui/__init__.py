"""The Textual app: one app model (model/app_model.py), drawn by line-API
widgets from the lines of `maskattn_tui.render`. Use `make_app(...)`."""

from maskattn_tui.tui.app import MaskattnApp, make_app

__all__ = ["MaskattnApp", "make_app"]
