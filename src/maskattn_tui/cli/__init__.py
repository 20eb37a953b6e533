"""The command line: argparse, its messages, the JSON output, the explore
options and export. `main` is the console script."""

from maskattn_tui.cli.commands import COMMANDS, ascii_wanted, main

__all__ = ["COMMANDS", "ascii_wanted", "main"]
