"""maskattn-tui: a terminal explorer for attention masks (the F12 figure)."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """`maskattn_tui.capture(dir)` (torch is imported only when it runs)."""
    if name == "capture":
        from importlib import import_module

        return import_module("maskattn_tui.capture")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
