"""--labels: a token label per absolute position, shown beside each query
and over each key (as Hugging Face's AttentionMaskVisualizer shows the
tokens), in the app's grid, `print`, mask mode and `export`'s frames, and
as `query_labels` / `key_labels` in `json`.

    --labels "The,cat,sat,on,the"     a comma list
    --labels @tokens.txt              a text file: one label per line

The file is read as UTF-8 text and never run. Labels are stripped; an
empty one, a control character or a label longer than MAX_LABEL is refused
in one line, and so is a count that does not match the table's positions
(a configuration shown by blocks too: there `print` names the selected
row's token and those of its largest weights, `json` gives them).
No Rich or Textual here: --help loads this module's option."""

from __future__ import annotations

import argparse

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t

LABELS_DEST = "labels"
#: The longest label (cells show TOKEN_MAX of it; a row shows it whole).
MAX_LABEL = 24
#: A file of labels larger than this is refused (a position needs a label,
#: not a document): room for a long rule's 1,048,576 positions.
MAX_FILE_BYTES = 32 << 20


class LabelsError(MaskattnError):
    def message(self, lang: str) -> str:
        return t(f"cli.labels.{self.key}", lang, **self.params)


def add_labels_argument(parser: argparse.ArgumentParser, lang: str) -> None:
    parser.add_argument("--labels", dest=LABELS_DEST, metavar="L0,L1,…|@FILE", default=argparse.SUPPRESS,
                        help=t("cli.help.labels", lang))


def _read_file(path: str) -> list[str]:
    import os

    try:
        if not os.path.exists(path):  # a typo is told as one, not as "not a file"
            raise LabelsError("missing", path=path)
        if not os.path.isfile(path):
            raise LabelsError("not_a_file", path=path)
        if os.path.getsize(path) > MAX_FILE_BYTES:
            raise LabelsError("too_large", path=path, limit=f"{MAX_FILE_BYTES:,}")
        with open(path, encoding="utf-8") as file:
            return file.read().splitlines()
    except UnicodeDecodeError:
        raise LabelsError("not_text", path=path) from None
    except OSError as exc:
        raise LabelsError("unreadable", path=path, reason=exc.strerror or exc) from None


def parse_labels(value: str) -> tuple[str, ...]:
    """The labels `value` gives (a comma list, or @FILE); LabelsError if bad."""
    raw = _read_file(value[1:]) if value.startswith("@") else value.split(",")
    if value.startswith("@"):
        while raw and not raw[-1].strip():  # a file's last newline
            raw.pop()
    labels = tuple(x.strip() for x in raw)
    for i, label in enumerate(labels):
        if not label:
            raise LabelsError("empty", index=i)
        if any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in label):
            raise LabelsError("control", index=i)
        if len(label) > MAX_LABEL:
            raise LabelsError("too_long", index=i, limit=MAX_LABEL)
    if not labels:
        raise LabelsError("none")
    return labels


def labels_from_args(args: argparse.Namespace, positions: int | None = None) -> tuple[str, ...] | None:
    """The --labels given (None: none), checked against `positions`, the
    number of positions the shown tables have."""
    if getattr(args, LABELS_DEST, None) is None:
        return None
    labels = parse_labels(getattr(args, LABELS_DEST))
    if positions is not None and len(labels) != positions:
        raise LabelsError("count", given=len(labels), positions=positions)
    return labels


def labels_at(labels: tuple[str, ...], positions) -> list[str | None]:
    """The label of each absolute position (None past the last label)."""
    return [labels[p] if 0 <= p < len(labels) else None for p in positions]
