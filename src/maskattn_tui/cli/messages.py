"""argparse's own error messages in the user's language. argparse writes
them in English itself ("unrecognized arguments: ...", "invalid choice:
..."); our Parser turns every error into a UsageError, and this module
rewrites the message into the strings of data/strings/cli.json. A message
it does not recognise is left as it is. Only the patterns (argparse's
English, the same on Python 3.10-3.13) live here; the wording is data."""

from __future__ import annotations

import re

from maskattn_tui.i18n import t

#: argparse's messages, most specific first: (pattern, string key). Each
#: named group is passed to the string; `detail` is translated again.
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.DOTALL), key) for pattern, key in (
        (r"argument \{(?P<choices>[^}]*)\}: (?P<detail>.*)", "cli.argparse.command"),
        (r"argument (?P<name>[^:]+): (?P<detail>.*)", "cli.argparse.argument"),
        (r"unrecognized arguments: (?P<args>.*)", "cli.argparse.unrecognized"),
        (r"the following arguments are required: (?P<args>.*)", "cli.argparse.required"),
        (r"invalid choice: (?P<value>.*?) \(choose from (?P<choices>.*)\)", "cli.argparse.choice"),
        (r"expected one argument", "cli.argparse.one"),
        (r"expected at least one argument", "cli.argparse.at_least_one"),
        (r"expected at most one argument", "cli.argparse.at_most_one"),
        (r"expected (?P<count>\d+) arguments?", "cli.argparse.count"),
        (r"invalid (?P<type>\S+) value: (?P<value>.*)", "cli.argparse.value"),
        (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)", "cli.argparse.ambiguous"),
        (r"not allowed with argument (?P<name>.*)", "cli.argparse.not_with"),
        (r"ignored explicit argument (?P<value>.*)", "cli.argparse.ignored"),
    )
)


def argparse_message(message: str, lang: str) -> str:
    """`message` (from argparse or from our own argument types) in `lang`."""
    if lang == "en":
        return message
    for pattern, key in PATTERNS:
        match = pattern.fullmatch(message)
        if match is not None:
            parts = match.groupdict()
            if "detail" in parts:
                parts["detail"] = argparse_message(parts["detail"], lang)
            return t(key, lang, **parts)
    return message
