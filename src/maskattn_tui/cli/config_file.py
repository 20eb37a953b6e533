"""The settings file: `$XDG_CONFIG_HOME/maskattn-tui/config.toml` (else
~/.config/...), or the one --config-file names. What it may set: the
language, the app's theme (one of Textual's), ASCII, the dwell, the lenses
`print` and `json` add, and the app's keys by binding id (the command
table's ids, model/commands.py). The command line wins over the file,
and the file over the environment (LANG).

    language = "zh"
    theme = "textual-light"
    ascii = false
    dwell = 3.0
    lenses = ["sdpa-bool", "hf"]
    [keys]
    next = "n"            # or ["n", "ctrl+n"]

A bad file is one line naming it and the key, exit 2; the default file
may be absent, a named one may not. The file is data: read as TOML from a
regular file (never a FIFO), at most the scenario files' size."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import LANGS, lang_from_env, t

#: The settings and their TOML types (--lang, --ascii, --dwell and --lens override the first four).
KEYS = {"language": str, "theme": str, "ascii": bool, "dwell": float, "lenses": list, "keys": dict}
#: The commands each setting applies to (None: the app itself).
APPLIES = {"ascii": (None, "print", "export"), "dwell": (None, "export"), "lenses": ("print", "json"),
           "theme": (None, "export"), "keys": (None, "export")}
# (serve: each visitor's app reads the file itself; serve only checks it)


class ConfigError(MaskattnError):
    """A bad settings file: one line naming the file and the key, exit 2."""

    def message(self, lang: str) -> str:
        params = dict(self.params)
        if "kind_key" in params:  # the expected type, in the message's language
            params["kind"] = t(params.pop("kind_key"), lang)
        return t(f"eco.config.{self.key}", lang, **params)


@dataclass
class Settings:
    """The file's values (those it sets) and where it is."""

    path: str | None = None
    values: dict = field(default_factory=dict)
    #: binding id -> Textual key names, normalised (App.set_keymap's form)
    keymap: dict[str, tuple[str, ...]] = field(default_factory=dict)


def default_path(environ=None) -> str:
    env = os.environ if environ is None else environ
    home = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(home, "maskattn-tui", "config.toml")


def load(named: str | None, environ=None) -> Settings:
    """The settings of `named` (--config-file) or of the default file."""
    path = named if named is not None else default_path(environ)
    if named is None and not os.path.lexists(path):
        return Settings()  # the usual case: no reader (tomllib, the explorer's) imported
    from maskattn_tui.explore.scenario_file import ReadProblem, read_text_file

    try:
        text = read_text_file(path)
    except ReadProblem as p:
        if p.reason == "missing" and named is None:
            return Settings()
        # a folder, or a name the system refuses: unreadable, with the system's words
        raise ConfigError({"is_dir": "unreadable", "bad_name": "unreadable"}.get(p.reason, p.reason),
                          file=path, **p.params) from None
    return parse(text, path)


def _toml(text: str, path: str) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError("bad_toml", file=path, problem=str(e).replace("\n", " ")) from None


def parse(text: str, path: str) -> Settings:
    data = _toml(text, path)
    values: dict = {}
    for key, value in data.items():
        if key not in KEYS:
            raise ConfigError("unknown", file=path, setting=key, known=", ".join(KEYS))
        kind = KEYS[key]
        ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise ConfigError("bad_type", file=path, setting=key, value=repr(value), kind_key=f"eco.config.kind.{key}")
        values[key] = value
    if "language" in values and values["language"] not in LANGS:
        raise ConfigError("bad_value", file=path, setting="language", value=values["language"], allowed=", ".join(LANGS))
    if "dwell" in values and not 0.25 <= values["dwell"] <= 10:
        raise ConfigError("bad_value", file=path, setting="dwell", value=values["dwell"], allowed="0.25-10")
    if "lenses" in values:
        from maskattn_tui.explore.api_lens import LENS_NAMES, parse_lens_names

        try:
            values["lenses"] = parse_lens_names([str(v) for v in values["lenses"]])
        except MaskattnError:
            raise ConfigError("bad_value", file=path, setting="lenses", value=values["lenses"],
                              allowed=", ".join((*LENS_NAMES, "all"))) from None
    keymap = {}
    for id, keys in values.pop("keys", {}).items():
        listed = [keys] if isinstance(keys, str) else keys
        if not isinstance(listed, list) or not all(isinstance(k, str) and k.strip() for k in listed):
            raise ConfigError("bad_type", file=path, setting=f"keys.{id}", value=repr(keys),
                              kind_key="eco.config.kind.key")
        keymap[id] = tuple(k.strip() for item in listed for k in item.split(",") if k.strip())
    from maskattn_tui.model.commands import BY_ID

    unknown = [id for id in keymap if id not in BY_ID]  # for every command (the keys' clashes: checked_keys)
    if unknown:
        raise ConfigError("key_unknown_id", file=path, setting=f"keys.{unknown[0]}")
    return Settings(path, values, keymap)


def checked_theme(settings: Settings) -> str | None:
    """The theme, if one of Textual's (imported only for the commands that draw the app)."""
    name = settings.values.get("theme")
    if name is None:
        return None
    from textual.theme import BUILTIN_THEMES

    if name not in BUILTIN_THEMES:
        raise ConfigError("bad_value", file=settings.path, setting="theme", value=name,
                          allowed=", ".join(sorted(BUILTIN_THEMES)))
    return name


def checked_keys(settings: Settings):
    """The command table with the file's keys (model.commands.remapped), the
    keys named as Textual names them ("?" is "question_mark")."""
    from textual.keys import _character_to_key

    from maskattn_tui.model.commands import KeymapProblem, remapped

    def name(key: str) -> str:
        head, _, last = key.rpartition("+")
        return (head + "+" if head else "") + (_character_to_key(last) if len(last) == 1 else last)

    keymap = {id: tuple(name(k) for k in keys) for id, keys in settings.keymap.items()}
    try:
        return remapped(keymap)
    except KeymapProblem as p:
        raise ConfigError(f"key_{p.kind}", file=settings.path, setting=f"keys.{p.id}", value=p.key, other=p.other) from None


def looks(args) -> dict:
    """The settings file's theme and keys, checked (tui.bindings.wear takes them)."""
    settings = getattr(args, "settings", None) or Settings()
    return {"theme": checked_theme(settings), "commands": checked_keys(settings) if settings.keymap else None}


def report(args, lang: str, env_ascii: bool) -> str:
    """`config`: the file checked (its theme and keys too), then where it
    is; with --show, every value in force and where it came from."""
    looks(args)
    if args.show:
        return show(args, lang, env_ascii)
    state = "eco.config.present" if args.settings.path else "eco.config.from.absent"
    return t("eco.config.where", lang, file=args.settings.path or default_path(), state=t(state, lang)) + "\n"


def apply(args, settings: Settings) -> dict[str, str]:
    """Fill in what the command line did not give from the file; returns
    where each setting in force came from (for `config --show`)."""
    from maskattn_tui.cli.explore_options import LENS_DEST

    command = args.command
    origin: dict[str, str] = {}
    dests = {"language": "lang", "ascii": "ascii", "dwell": "dwell", "lenses": LENS_DEST}
    for key, dest in dests.items():
        if hasattr(args, dest) and getattr(args, dest) not in (None, False):
            origin[key] = "option"
        elif key in settings.values and (key == "language" or command in APPLIES[key] or command == "config"):
            value = settings.values[key]
            setattr(args, dest, ",".join(value) if key == "lenses" else value)
            origin[key] = "file"
    return origin


def show(args, lang: str, env_ascii: bool) -> str:
    """`config --show`: each setting in force and where it came from
    (`env_ascii`: the locale or terminal asks for ASCII)."""
    settings: Settings = args.settings
    from_env = any(os.environ.get(name) for name in ("LC_ALL", "LC_MESSAGES", "LANG"))
    origins = dict(args.origins)
    theme = checked_theme(settings)
    table = checked_keys(settings)
    rows = [("file", settings.path or default_path(), "file" if settings.path else "absent"),
            ("language", args.lang or lang_from_env(), origins.get("language", "environment" if from_env else "default")),
            ("theme", theme or "textual-dark", "file" if theme else "default"),
            ("ascii", str(bool(args.ascii) or env_ascii).lower(),
             origins.get("ascii", "environment" if env_ascii else "default")),
            ("dwell", f"{args.dwell:g}", origins.get("dwell", "default")),
            ("lenses", ",".join(settings.values.get("lenses", ())) or "-", "file" if "lenses" in settings.values
             else "default")]
    rows += [(f"keys.{new.id}", new.keys, "file" if new.id in settings.keymap else "default")
             for new in table]
    width = max(len(name) for name, _, _ in rows)
    lines = [t("eco.config.show_head", lang)]
    lines += [f"  {name:<{width}}  {value}  ({t(f'eco.config.from.{origin}', lang)})" for name, value, origin in rows]
    return "\n".join(lines) + "\n"
