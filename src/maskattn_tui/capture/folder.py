"""A capture folder read as untrusted data: the one place that opens its
files (capture.json, calls-*.jsonl, masks/<hash>.npy, qk/<hash>.npy), for
`doctor DIR`, `--mask DIR`, `print --mask DIR`, the app and the manifest
writer's join. A folder may come from anyone, so:

- only regular files with one name, inside the folder: every name is
  opened relative to the folder's own descriptor (where the system can)
  with O_NOFOLLOW (a
  symlink, also `masks/` as one, is refused, never followed), after an
  lstat, with O_NONBLOCK and checked again on the descriptor (a FIFO or a
  device is refused before any read: nothing blocks, /dev/zero is not read);
  a file with more than one name (a hard link) is refused, as its other
  name may be outside the folder;
- sizes are capped before reading; JSON text is checked for depth before
  it is parsed (no RecursionError), strictly (no NaN), and each calls line
  for length; UTF-8 errors are named with the file and the line;
- each call's fields are type-checked (records.py); a mask file must hold
  the call's (q_len, k_len) table and hash to its own name (table_files.py:
  a table cannot stand in for another, nor an outside file for a mask);
- what cannot be used is said, once: a refused file or line becomes a note
  (a MaskattnError, told in the reader's language) and the rest is read;
  when nothing is usable, the first reason is raised (one line, exit 2).

Never unpickles, never executes. Needs numpy for tables only."""

from __future__ import annotations

import errno
import json
import os
import re
import stat

from maskattn_tui.capture.records import SCHEMA, checked_call, printable_json, shown_value
from maskattn_tui.errors import MaskattnError

MANIFEST = "capture.json"
#: capture.json is read whole into memory (~1 KB a call): at most this many bytes.
MANIFEST_LIMIT = 256 << 20
#: ... and so are the calls files, all of them together.
CALLS_LIMIT = 256 << 20
#: One call's line (a [64, 64] batch x heads of hashes is ~100 KB).
LINE_LIMIT = 4 << 20
#: Brackets nested deeper than this are not a capture's (its own reach ~5).
MAX_DEPTH = 32
#: Notes kept (a folder of a million bad lines says how many more).
NOTES_KEPT = 50

_CALLS_NAME = re.compile(r"calls-.*\.jsonl")
_FLAG = {name: getattr(os, name, 0) for name in ("O_NOFOLLOW", "O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "O_DIRECTORY")}
_OPEN = os.O_RDONLY | _FLAG["O_NOFOLLOW"] | _FLAG["O_NONBLOCK"] | _FLAG["O_NOCTTY"] | _FLAG["O_CLOEXEC"]
_OPEN_DIR = os.O_RDONLY | _FLAG["O_DIRECTORY"] | _FLAG["O_CLOEXEC"]
#: Names opened relative to the folder's descriptor where the system can
#: (POSIX); elsewhere by path, each still looked at without following links.
_AT = {os.open, os.stat} <= os.supports_dir_fd and os.listdir in os.supports_fd
_KINDS = ((stat.S_ISDIR, "directory"), (stat.S_ISLNK, "symlink"), (stat.S_ISFIFO, "fifo"),
          (stat.S_ISCHR, "char"), (stat.S_ISBLK, "block"), (stat.S_ISSOCK, "socket"))


class Refused(MaskattnError):
    """One file (or one line of it) not used, and why: "{file}: {reason}"."""

    def __init__(self, file: str, reason: str, **params: object) -> None:
        super().__init__("capture_refused", file=file, reason=reason, **params)

    def message(self, lang: str) -> str:
        from maskattn_tui.i18n import t
        from maskattn_tui.printable import escaped

        params = {k: v for k, v in self.params.items() if k not in ("file", "reason", "line")}
        reason = t(f"capture_folder.reason.{self.params['reason']}", lang, **params)
        file = escaped(str(self.params["file"]))
        if "line" in self.params:
            file = t("capture_folder.file_line", lang, file=file, line=self.params["line"])
        return t("error.capture_refused", lang, file=file, reason=reason)


class Notes(list):
    """The problems met while reading (MaskattnError each); past NOTES_KEPT, a count."""

    more = 0

    def add(self, problem: MaskattnError) -> None:
        if len(self) < NOTES_KEPT:
            self.append(problem)
        else:
            self.more += 1


# --- files -----------------------------------------------------------------------


def open_dir(folder: str) -> int | str:
    """The folder, as a descriptor names are opened relative to (or its path)."""
    if not os.path.isdir(folder):
        raise MaskattnError("capture_not_folder", folder=folder)
    if not _AT:
        return folder
    try:
        return os.open(folder, _OPEN_DIR)
    except OSError:
        raise MaskattnError("capture_not_folder", folder=folder) from None


def close_dir(where: int | str) -> None:
    if isinstance(where, int):
        os.close(where)


def _at(where: int | str, name: str) -> tuple[str, dict]:
    return (name, {"dir_fd": where}) if isinstance(where, int) else (os.path.join(where, name), {})


def open_entry(where: int | str, name: str, shown: str, limit: int) -> tuple[int, os.stat_result]:
    """(descriptor, its stat) of the regular file `name` in the folder
    `where` (open_dir's): not a link, not special, one name, at most
    `limit` bytes; else Refused naming `shown`."""
    path, at = _at(where, name)
    before = _lstat(path, at, shown)
    _check(before, shown, limit)
    try:
        fd = os.open(path, _OPEN, **at)
    except OSError as exc:  # replaced since the lstat: a link now (ELOOP) or gone
        raise Refused(shown, "symlink" if exc.errno == errno.ELOOP else "unreadable",
                      why=exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino):
            raise Refused(shown, "changed")
        _check(info, shown, limit)
        if _FLAG["O_NONBLOCK"]:
            os.set_blocking(fd, True)  # a regular file: reads never wait anyway
        return fd, info
    except BaseException:
        os.close(fd)
        raise


def _lstat(path: str, at: dict, shown: str) -> os.stat_result:
    """The entry itself (a link is not followed); Refused naming `shown`."""
    try:
        return os.stat(path, follow_symlinks=False, **at)
    except FileNotFoundError:
        raise Refused(shown, "missing") from None
    except OSError as exc:
        raise Refused(shown, "unreadable", why=exc.strerror or str(exc)) from None


def _check(info: os.stat_result, shown: str, limit: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise Refused(shown, next((k for test, k in _KINDS if test(info.st_mode)), "special"))
    if info.st_nlink > 1:
        raise Refused(shown, "hardlink", links=info.st_nlink)
    if info.st_size > limit:
        raise Refused(shown, "too_large", size=_size(info.st_size), limit=_size(limit))


def _size(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.1f} MiB"


def _read_all(fd: int, limit: int, shown: str) -> bytes:
    """At most `limit` bytes (st_size was checked; a file growing meanwhile is cut here)."""
    with os.fdopen(fd, "rb") as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise Refused(shown, "too_large", size=f"> {_size(limit)}", limit=_size(limit))
    return data


def subfolder(where: int | str, name: str, shown: str) -> int | str:
    """masks/ or qk/ of the folder (as open_dir gives it), itself not a link."""
    path, at = _at(where, name)
    info = _lstat(path, at, shown)
    if not stat.S_ISDIR(info.st_mode):
        raise Refused(shown, "symlink" if stat.S_ISLNK(info.st_mode) else "not_folder")
    if not at:
        return path
    try:
        return os.open(path, _OPEN_DIR | _FLAG["O_NOFOLLOW"], **at)
    except OSError as exc:
        raise Refused(shown, "unreadable", why=exc.strerror or str(exc)) from None


# --- JSON ------------------------------------------------------------------------

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIR = re.compile(r"\[\]|\{\}")


def _too_deep(text: str) -> bool:
    """Brackets nested deeper than MAX_DEPTH, strings aside. First the
    brackets alone (two C-speed passes over the text); only when they look
    too deep are the strings taken out and the brackets counted again (a
    bracket inside a string is not nesting). A file that hides its depth
    behind brackets in strings meets the parser's own limit (RecursionError,
    caught) or is merely deep, which nothing here walks."""
    return _peel_deep(_NOT_BRACKET.sub("", text)) and _peel_deep(_NOT_BRACKET.sub("", _STRING.sub("", text)))


def _peel_deep(brackets: str) -> bool:
    """Innermost pairs peeled once per level (no recursion)."""
    for _ in range(MAX_DEPTH):
        if not brackets:
            return False
        brackets, peeled = _PAIR.subn("", brackets)
        if not peeled:
            return False  # unbalanced: the parser says where
    return bool(brackets)


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def parse(text: str, shown: str, line: int | None = None):
    """The JSON value of `text` or Refused (too deep, not JSON)."""
    at = {} if line is None else {"line": line}
    if _too_deep(text):
        raise Refused(shown, "too_deep", depth=MAX_DEPTH, **at)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:  # not reached after _too_deep; kept so that no traceback can be
        raise Refused(shown, "too_deep", depth=MAX_DEPTH, **at) from None
    except ValueError as exc:
        raise Refused(shown, "not_json", why=str(exc)[:80], **at) from None


def _decoded(data: bytes, shown: str, line: int | None = None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if line is None:  # a whole file: which line
            line = data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        else:
            column = exc.start + 1
        raise Refused(shown, "not_utf8", line=line, byte=f"0x{data[exc.start]:02x}", column=column) from None


# --- the calls files -------------------------------------------------------------


def read_calls(folder: str, notes: Notes | None = None, check: bool = True) -> list[dict]:
    """Every process's calls, the first process's first; `call` numbers
    them all, `within` is turned into that numbering. A refused file or
    line is a note (added to `notes` when given), never a traceback.
    check=False (the manifest writer joining its own run's files): every
    JSON object is kept as written, a call that failed to record too."""
    where = open_dir(folder)
    try:
        return _calls(folder, where, Notes() if notes is None else notes, check)
    finally:
        close_dir(where)


def _calls(folder: str, where: int | str, notes: Notes, check: bool = True) -> list[dict]:
    files, budget = [], CALLS_LIMIT
    for name in sorted(n for n in os.listdir(where) if _CALLS_NAME.fullmatch(n)):
        shown = os.path.join(folder, name)
        try:
            fd, info = open_entry(where, name, shown, budget)
            data = _read_all(fd, budget, shown)
        except Refused as problem:
            notes.add(problem)
            continue
        budget -= len(data)
        files.append(((info.st_ctime_ns, name), shown, data))  # in the order their processes began
    calls: list[dict] = []
    for _, shown, data in sorted(files):
        numbers: dict[int, int] = {}
        for record in _lines(shown, data, notes, check):
            index = record.get("index")
            numbers[index if type(index) is int else -1] = len(calls)
            record["call"] = len(calls)
            if record.get("within") is not None:
                record["within"] = numbers.get(record["within"]) if type(record["within"]) is int else None
            intent = record.get("intent")
            if isinstance(intent, dict) and intent.get("builder_call") is not None:  # the mask builder's call
                made = intent["builder_call"]
                intent["builder_call"] = numbers.get(made) if type(made) is int else None
            calls.append(record)
    return calls


def _lines(shown: str, data: bytes, notes: Notes, check: bool):
    """The checked records of one calls file, each problem a note."""
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            if len(raw) > LINE_LIMIT:
                raise Refused(shown, "line_long", line=number, size=_size(len(raw)), limit=_size(LINE_LIMIT))
            try:
                text = _decoded(raw, shown, number)
                record = parse(printable_json(text) if check else text, shown, number)
            except Refused:
                if number == len(lines):  # no end of line: the writer stopped in the middle of it
                    raise Refused(shown, "cut_short", line=number) from None
                raise
            if not isinstance(record, dict):
                raise Refused(shown, "not_object", line=number)
            problem = checked_call(record) if check else None
            if problem is not None:
                raise Refused(shown, problem[0], line=number, **problem[1])
        except Refused as refused:
            notes.add(refused)
            continue
        yield record


# --- the manifest ----------------------------------------------------------------


def load(folder: str) -> dict:
    """The manifest of a capture folder, its calls checked, its text made
    printable, and `notes`: what was not used. One line (MaskattnError)
    when it is not a capture folder or nothing in it is usable."""
    notes = Notes()
    where = open_dir(folder)
    try:
        document = _manifest(folder, where, notes)
        if not document["complete"]:
            document["calls"] = _calls(folder, where, notes)
    finally:
        close_dir(where)
    document["masks"] = masks_of(document["calls"])
    if not document["calls"] and notes:
        raise notes[0]
    document["notes"] = notes
    return document


def _manifest(folder: str, where: int | str, notes: Notes) -> dict:
    """capture.json checked, or a stand-in when there is none (a killed run
    leaves calls files only): `manifest: False`, nothing known of the run."""
    shown = os.path.join(folder, MANIFEST)
    try:
        fd, _ = open_entry(where, MANIFEST, shown, MANIFEST_LIMIT)
    except Refused as problem:
        if problem.params["reason"] != "missing":
            raise
        if not any(_CALLS_NAME.fullmatch(n) for n in os.listdir(where)):
            raise MaskattnError("capture_no_manifest", folder=folder) from None
        return {"schema": SCHEMA, "complete": False, "manifest": False}
    document = parse(printable_json(_decoded(_read_all(fd, MANIFEST_LIMIT, shown), shown)), shown)
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        raise Refused(shown, "schema", schema=SCHEMA)
    for field, kind in (("command", list), ("exception", str), ("exit_status", int)):
        value = document.get(field)
        if value is not None and (type(value) is not kind or kind is list and
                                  not all(isinstance(a, str) for a in value)):
            notes.add(Refused(shown, "field_value", field=field, value=shown_value(value)))
            document[field] = None
    document["complete"] = document.get("complete") is True
    if document["complete"]:
        document["calls"] = _manifest_calls(shown, document.get("calls"), notes)
    return document


def _manifest_calls(shown: str, calls, notes: Notes) -> list[dict]:
    if not isinstance(calls, list):
        raise Refused(shown, "field_value", field="calls", value=shown_value(calls))
    out = []
    for i, call in enumerate(calls):
        problem = ("not_object", {}) if not isinstance(call, dict) else checked_call(call, numbered=True)
        if problem is not None:
            notes.add(Refused(f"{shown} calls[{i}]", problem[0], **problem[1]))
        else:
            out.append(call)
    return out


def mask_hashes(call: dict) -> list[str]:
    mask = call.get("mask") or {}
    return [h for row in mask.get("hashes") or [] for h in row]


def masks_of(calls: list[dict]) -> dict:
    """Each distinct mask's hash -> the calls that used it (in order)."""
    out: dict[str, list[int]] = {}
    for call in calls:
        for digest in dict.fromkeys(mask_hashes(call)):
            out.setdefault(digest, []).append(call["call"])
    return {digest: {"calls": used} for digest, used in out.items()}
