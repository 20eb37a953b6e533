"""maskattn-tui: a terminal explorer for attention masks (the F12 figure)."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """`maskattn_tui.capture(dir)`, `maskattn_tui.probe(model, input_ids)`
    (torch is imported only when they run)."""
    if name in ("capture", "probe"):
        from importlib import import_module

        return import_module(f"maskattn_tui.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
