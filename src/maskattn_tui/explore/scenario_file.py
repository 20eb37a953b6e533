"""Scenario files: an ExploreConfig as TOML.

    past = 3                  # cached keys, 0..32
    new = 2                   # queries in this batch, 1..32
    pad = 1                   # PAD positions, 0..past + new
    pad_side = "left"         # "left" or "right"
    causal = true
    window = 3                # optional: sliding window, W keys incl. self
    chunk = 4                 # optional: chunked attention
    prefix = 2                # optional: prefix-LM
    documents = [3, 2, 3]     # optional: packed documents (sum = past + new)
    tree = [-1, 0, 0, 1, 2]   # optional: draft tree, one parent per new token
    temperature = 1.0         # 0.1..10
    empty_row_policy = "zeros"  # error | nan | zeros | uniform
    seed = 0
    q = [[1.0, 0.0], [0.0, 1.0]]        # optional: new rows
    k = [[1.0, 0.0], ...]               # optional: past + new rows
    v = [[10.0], ...]                   # optional: past + new rows
    v_override = [[4, 9999.0]]          # optional: [key, value] pairs
    score_override = [[0, 2, 5.0]]      # optional: [row, key, score]

Every key is optional (defaults: ExploreConfig()). Loading raises
MaskattnError with a message that names the file, the key and the problem;
saving is atomic and never replaces an existing file unless overwrite=True."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t
from maskattn_tui.safe_write import remove_quietly, write_temp

from maskattn_tui.explore.config import FIELDS, ExploreConfig
from maskattn_tui.explore.errors import ContextError, field_of
from maskattn_tui.explore.fields import FIELDS as SCHEMA, shown_spans

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: Expected TOML type of each key (checked before the values are validated),
#: from the one schema (explore.fields).
KEY_TYPES = {f.name: f.toml_type for f in SCHEMA}
assert set(KEY_TYPES) == set(FIELDS)

#: The largest scenario file read (64 x 64 explicit numbers take ~100 KB;
#: /dev/zero or a wrong file must not fill the memory).
MAX_BYTES = 1024 * 1024


def _type_ok(kind: str, value: object) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "text":
        return isinstance(value, str)
    if kind == "int_list":
        return isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    if kind == "matrix":
        return isinstance(value, list) and all(isinstance(row, list) for row in value)
    return isinstance(value, list)


def loads_scenario(text: str, file: str = "<scenario>") -> ExploreConfig:
    """Parse TOML text; `file` is the name used in messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise MaskattnError("explore_file_not_toml", file=file, problem=str(e)) from None
    except RecursionError:  # arrays nested thousands deep
        raise MaskattnError("explore_file_too_deep", file=file) from None
    except ValueError as e:  # an integer beyond Python's 4,300 digits
        raise MaskattnError("explore_file_not_toml", file=file, problem=str(e)) from None
    for key, value in data.items():
        if key not in KEY_TYPES:
            raise MaskattnError(
                "explore_file_unknown_key", file=file, toml_key=key, choices=", ".join(FIELDS)
            )
        kind = KEY_TYPES[key]
        if not _type_ok(kind, value):
            raise MaskattnError(f"explore_file_type_{kind}", file=file, toml_key=key, value=value)
    try:
        config = ExploreConfig(**data)
    except MaskattnError as e:
        raise ContextError("explore_in_file", e, file=file, toml_key=field_of(e) or "?") from None
    if "q" in data or "k" in data:  # explicit inputs: can their scores be computed?
        from maskattn_tui.engine.matrices import scaled_scores

        q, k, _ = config.inputs()
        try:
            scaled_scores(q, k)
        except MaskattnError as e:
            raise ContextError("explore_in_file", e, file=file, toml_key="q, k") from None
    return config


def load_scenario(path: str | os.PathLike) -> ExploreConfig:
    """Read and validate a scenario file."""
    file = os.fspath(path)
    try:
        text = read_text_file(file)
    except ReadProblem as p:
        raise MaskattnError(f"explore_file_{p.reason}", file=file, **p.params) from None
    return loads_scenario(text, file)


class ReadProblem(Exception):
    """Why a small text file could not be read: `reason` (missing, is_dir,
    not_regular, unreadable, bad_name, too_big, not_utf8) and what its
    message says (`problem`, `kib`); each reader names it in its own words."""

    def __init__(self, reason: str, **params: object) -> None:
        super().__init__(reason)
        self.reason, self.params = reason, params


def read_text_file(file: str) -> str:
    """The UTF-8 text of a regular file of at most MAX_BYTES (a scenario, the
    settings file): ReadProblem when it is not one."""
    try:
        raw = _read_regular(file)
    except MaskattnError:
        raise ReadProblem("not_regular") from None
    except FileNotFoundError:
        raise ReadProblem("missing") from None
    except IsADirectoryError as e:
        raise ReadProblem("is_dir", problem=e.strerror or e) from None
    except OSError as e:
        raise ReadProblem("unreadable", problem=e.strerror or e) from None
    except ValueError as e:  # a NUL in the name
        raise ReadProblem("bad_name", problem=e) from None
    if len(raw) > MAX_BYTES:
        raise ReadProblem("too_big", kib=MAX_BYTES // 1024)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ReadProblem("not_utf8") from None


def _read_regular(file: str) -> bytes:
    """At most MAX_BYTES + 1 bytes of a regular file. Opened non-blocking
    and checked on the descriptor: a FIFO with no writer (or a terminal)
    would block the read, and the app with it."""
    fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(file)
        if not stat.S_ISREG(mode):
            raise MaskattnError("explore_file_not_regular", file=file)
        os.set_blocking(fd, True)
        return os.read(fd, MAX_BYTES + 1)  # never more than the cap
    finally:
        os.close(fd)


# --- writing ------------------------------------------------------------------


def _number(x: float | int) -> str:
    if isinstance(x, int):
        return str(x)
    return repr(float(x))  # shortest text that reads back to the same float


def _array(values) -> str:
    return "[" + ", ".join(_array(v) if isinstance(v, (list, tuple)) else _number(v) for v in values) + "]"


def _text(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dumps_scenario(config: ExploreConfig) -> str:
    """The configuration as TOML text (written by hand: no TOML writer
    dependency). Explicit Q/K/V and overrides appear only when set."""
    lines = [
        f"# {t('explore.file_header', 'en')}",
        f"past = {config.past}",
        f"new = {config.new}",
        f"pad = {config.pad}",
        f"pad_side = {_text(config.pad_side)}",
        f"causal = {'true' if config.causal else 'false'}",
        f"temperature = {_number(config.temperature)}",
        f"empty_row_policy = {_text(config.empty_row_policy)}",
        f"seed = {config.seed}",
    ]
    for name in ("window", "window_right", "chunk", "prefix", "documents", "tree"):  # patterns: only when on
        value = getattr(config, name)
        if value is not None:
            lines.append(f"{name} = {_array(value) if isinstance(value, tuple) else value}")
    for name in ("bidirectional", "pad_keys"):  # position runs, as typed: "3-4,7"
        value = getattr(config, name)
        if value is not None:
            lines.append(f"{name} = {_text(shown_spans(value))}")
    if config.cache_slots:
        lines.append(f"cache_slots = {config.cache_slots}")
    for name in ("q", "k", "v"):
        value = getattr(config, name)
        if value is not None:
            lines.append(f"{name} = {_array(value)}")
    if config.v_override:
        lines.append(f"v_override = {_array(config.v_override)}")
    if config.score_override:
        lines.append(f"score_override = {_array(config.score_override)}")
    return "\n".join(lines) + "\n"


def save_scenario(
    config: ExploreConfig, path: str | os.PathLike, overwrite: bool = False
) -> Path:
    """Write `config` to `path` atomically: a temporary file in the same
    directory, then a rename. An existing file is left alone (MaskattnError
    "explore_file_exists") unless `overwrite` is True; a folder is refused
    whatever `overwrite` says. Through a symlink the link's target is
    written (the link stays). A new file gets the mode of any new file
    under the umask; a replaced one keeps its mode. Returns the path."""
    file = os.fspath(path)
    if "\0" in file:
        raise MaskattnError("explore_file_bad_name", file=file)
    target = Path(file)
    text = dumps_scenario(config)
    tmp = None
    try:  # the checks too: a name over 255 bytes raises ENAMETOOLONG from is_dir()
        if target.is_dir():
            raise MaskattnError("explore_file_is_dir", file=file)
        if not overwrite and os.path.lexists(target):
            raise MaskattnError("explore_file_exists", file=file)
        if target.is_symlink():
            target = Path(os.path.realpath(target))
        mode = target.stat().st_mode & 0o7777 if overwrite and target.is_file() else None
        tmp = write_temp(target, text, sync=True)
        if mode is not None:
            os.chmod(tmp, mode)
        if overwrite:
            os.replace(tmp, target)
        else:
            try:
                os.link(tmp, target)  # atomic, and refuses an existing name
            except FileExistsError:
                raise MaskattnError("explore_file_exists", file=file) from None
            except OSError:  # no hard links here: check, then rename
                if os.path.lexists(target):
                    raise MaskattnError("explore_file_exists", file=file) from None
                os.replace(tmp, target)
        return Path(file)
    except OSError as e:
        raise MaskattnError("explore_file_write", file=file, problem=e.strerror or e) from None
    finally:
        if tmp is not None and os.path.lexists(tmp):
            remove_quietly(tmp)
