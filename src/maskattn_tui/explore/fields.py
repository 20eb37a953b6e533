"""The ONE declaration of every explore field: name, kind, range, default,
command-line flag, scenario-file (TOML) type, side-panel control and help
text. Validation (explore.config), argparse (cli.explore_options), TOML
(explore.scenario_file) and the panel (tui.widgets.explore_panel) are all
derived from FIELDS; adding a field here adds it everywhere.

Kinds and the text a person types for them (command line, panel):
  int 3 · number 0.5 · bool on/off · choice left · optional_int 3 or "off"
  lengths 3,2,3 (whole numbers >= 1) · parents -1,0,0,1,2 (whole numbers)
  spans 3-4,7 (positions and inclusive runs of them; a TOML text "3-4,7")
  matrix / pairs / triples: scenario files only.

No Textual, Rich or configuration imports here: `--help` reads this module."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

#: Symbolic bound: past + new of the configuration being checked.
LENGTH = "past+new"
#: A saved mask's bound on positions and window / chunk sizes (doctor --expect):
#: the explorer caps past and new at 32 for its pure-Python attention; a mask
#: may have 16k positions, and a model's window (4096) may exceed the mask.
MASK_MAX = 1 << 20

#: kind -> scenario-file type (explore.scenario_file checks it before the values)
TOML_TYPE = {
    "int": "int", "number": "number", "bool": "bool", "choice": "text", "optional_int": "int",
    "lengths": "int_list", "parents": "int_list", "matrix": "matrix", "pairs": "list", "triples": "list",
    "spans": "text",
}


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    default: object
    lo: object = None
    hi: object = None
    choices: tuple[str, ...] = ()
    #: command-line option (None: none); `const` makes it a flag storing that value
    flag: str | None = None
    metavar: str | None = None
    const: object = None
    #: args destination (default explore_<name>)
    dest: str | None = None
    #: side-panel control: "input", "select", "tick" or None
    control: str | None = None
    #: string key of the --help text (default explore.help.<name>)
    help: str | None = None
    #: a mask rule's field: the doctor's --expect takes it too (MASK_FIELDS)
    mask: bool = False
    #: upper bound for a saved mask when wider than `hi` (None: `hi`)
    mask_hi: object = None

    @property
    def toml_type(self) -> str:
        return TOML_TYPE[self.kind]

    @property
    def arg_dest(self) -> str:
        return self.dest or f"explore_{self.name}"

    @property
    def help_key(self) -> str:
        return self.help or f"explore.help.{self.name}"

    @property
    def label_key(self) -> str:
        """The panel's label (tui.x.field.<name>)."""
        return f"tui.x.field.{self.name}"


# The engine's policy names, spelled here so that --help needs no engine import
# (tests/test_explore_fields.py checks they equal engine.softmax.EMPTY_ROW_POLICIES).
POLICIES = ("error", "nan", "zeros", "uniform")

FIELDS: tuple[Field, ...] = (
    Field("past", "int", 3, 0, 32, flag="--past", metavar="P", control="input", mask=True, mask_hi=MASK_MAX),
    Field("new", "int", 2, 1, 32, flag="--new", metavar="N", control="input", mask=True, mask_hi=MASK_MAX),
    Field("pad", "int", 0, 0, LENGTH, flag="--pad", metavar="K", control="input", mask=True),
    Field("pad_side", "choice", "left", choices=("left", "right"), flag="--pad-side",
          metavar="left|right", control="select", mask=True),
    Field("causal", "bool", True, flag="--no-causal", const=False, control="tick", help="explore.help.no_causal",
          mask=True),
    Field("window", "optional_int", None, 1, 64, flag="--window", metavar="W", control="input",
          mask=True, mask_hi=MASK_MAX),
    Field("window_right", "optional_int", None, 0, 64, flag="--window-right", metavar="R", control="input",
          mask=True, mask_hi=MASK_MAX),
    Field("chunk", "optional_int", None, 1, 64, flag="--chunk", metavar="C", control="input",
          mask=True, mask_hi=MASK_MAX),
    Field("prefix", "optional_int", None, 0, LENGTH, flag="--prefix", metavar="P", control="input", mask=True),
    Field("documents", "lengths", None, flag="--documents", metavar="L1,L2,...", control="input", mask=True),
    Field("tree", "parents", None, flag="--tree", metavar="P0,P1,...", control="input", mask=True),
    Field("bidirectional", "spans", None, flag="--bidirectional", metavar="A-B,...", control="input", mask=True),
    Field("pad_keys", "spans", None, flag="--pad-keys", metavar="A-B,...", control="input", mask=True),
    Field("cache_slots", "int", 0, 0, 32, flag="--cache-slots", metavar="N", control="input", mask=True, mask_hi=MASK_MAX),
    Field("sinks", "optional_int", None, 1, LENGTH, flag="--sinks", metavar="K", control="input", mask=True),
    Field("temperature", "number", 1.0, 0.1, 10.0, flag="--temperature", metavar="T", control="input"),
    Field("empty_row_policy", "choice", "error", choices=POLICIES, flag="--empty-row", metavar="POLICY",
          dest="explore_empty_row", control="select", help="explore.help.empty_row"),
    Field("seed", "int", 0, 0, 2**32 - 1, flag="--seed", metavar="S", control="input"),
    Field("q", "matrix", None),
    Field("k", "matrix", None),
    Field("v", "matrix", None),
    Field("v_override", "pairs", ()),
    Field("score_override", "triples", ()),
)
BY_NAME = {f.name: f for f in FIELDS}
NAMES = tuple(f.name for f in FIELDS)
#: Fields a person can set from the command line / a panel control.
OPTION_FIELDS = tuple(f for f in FIELDS if f.flag)
PANEL_FIELDS = tuple(f for f in FIELDS if f.control)


def for_masks(field: Field) -> Field:
    """The field as a saved mask's check reads it: the same, with `mask_hi`."""
    return field if field.mask_hi is None else replace(field, hi=field.mask_hi)


#: The mask rules' fields (past, new, pad, pad_side, causal, window,
#: window_right, chunk, prefix, documents, tree, bidirectional, pad_keys,
#: cache_slots, sinks) with a saved mask's bounds: doctor --expect.
MASK_FIELDS = tuple(for_masks(f) for f in FIELDS if f.mask)


def bounds(field: Field, length: int | None = None) -> tuple[object, object]:
    """(lo, hi) with LENGTH replaced by past + new when known."""
    def real(x: object) -> object:
        return length if x == LENGTH and length is not None else x
    return real(field.lo), real(field.hi)


def shown_range(field: Field) -> str:
    """"0–32", "0.1–10", "1–64" or "" (used by labels and --help)."""
    if field.lo is None:
        return ""
    lo, hi = (f"{x:g}" if isinstance(x, float) else str(x) for x in (field.lo, field.hi))
    return f"{lo}–{hi}"


def help_params(field: Field) -> dict[str, object]:
    """Everything a help string may name: range, default, choices."""
    def text(x: object) -> str:
        return f"{x:g}" if isinstance(x, float) else str(x)
    return dict(lo=text(field.lo), hi=text(field.hi), default=text(field.default),
                choices=", ".join(field.choices), range=shown_range(field))


class TextError(ValueError):
    """Typed text that is not a value of the field's kind: `expected` names
    the kind ("int", "number", "bool", "list", "parents")."""

    def __init__(self, field: Field, text: str, expected: str) -> None:
        super().__init__(f"{field.name}: {text!r} is not {expected}")
        self.field, self.text, self.expected = field, text, expected


OFF_WORDS = ("", "off", "none", "no")
_WHOLE = re.compile(r"[+-]?\d+")
#: More digits than any field or index can hold (the seed's 0..4294967295 has
#: 10); int() of more than 4,300 digits raises.
MAX_DIGITS = 12


def _whole(field: Field, text: str, part: str, expected: str) -> int:
    if not _WHOLE.fullmatch(part):
        raise TextError(field, text, expected)
    if len(part.lstrip("+-").lstrip("0")) > MAX_DIGITS:
        raise TextError(field, text, "too_large")
    return int(part)


def parse_text(field: Field, text: str) -> object:
    """What a person typed as the field's kind (not yet range-checked)."""
    raw = text.strip()
    kind = field.kind
    if kind == "int":
        return _whole(field, text, raw, "int")
    if kind == "number":
        try:
            return float(raw)  # NaN and inf are refused by the range check, with their own message
        except ValueError:
            raise TextError(field, text, "number") from None
    if kind == "bool":
        lowered = raw.lower()
        if lowered in ("on", "true", "yes", "1"):
            return True
        if lowered in ("off", "false", "no", "0"):
            return False
        raise TextError(field, text, "bool")
    if kind == "optional_int":
        if raw.lower() in OFF_WORDS:
            return None
        return _whole(field, text, raw, "optional_int")
    if kind == "spans":
        return parse_spans(field, text)
    if kind in ("lengths", "parents"):
        if raw.lower() in OFF_WORDS:
            return None
        parts = [p.strip() for p in re.split(r"[,\s]+", raw) if p.strip()]
        if not parts:
            raise TextError(field, text, kind)
        return tuple(_whole(field, text, p, kind) for p in parts)
    return raw


_SPAN = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


def parse_spans(field: Field, text: str) -> tuple[tuple[int, int], ...] | None:
    """"3-4,7" -> ((3, 4), (7, 7)): inclusive runs of positions, as typed
    (order and overlaps are checked with the configuration)."""
    raw = text.strip()
    if raw.lower() in OFF_WORDS:
        return None
    out = []
    for part in raw.split(","):
        m = _SPAN.fullmatch(part)
        if m is None:
            raise TextError(field, text, "spans")
        a, b = m.group(1), m.group(2) or m.group(1)
        out.append((_whole(field, text, a, "spans"), _whole(field, text, b, "spans")))
    return tuple(out)


def shown_spans(spans) -> str:
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def shown_text(field: Field, value: object) -> str:
    """A value as a text box shows it (parse_text reads it back)."""
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple) and field.kind == "spans":
        return shown_spans(value)
    if isinstance(value, tuple) and field.kind in ("lengths", "parents"):
        return ",".join(str(x) for x in value)
    return str(value)
