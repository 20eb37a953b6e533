"""maskattn-tui: a terminal explorer for attention masks (the F12 figure)."""

__version__ = "0.1.0"
