"""User-facing text, kept as data: every string lives in data/strings/*.json
in both languages; code refers to strings by key only."""

from __future__ import annotations

import json
import os
from functools import lru_cache

LANGS = ("en", "zh")
DEFAULT_LANG = "en"


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, str]]:
    """All strings, merged from every file in data/strings (one per area, so
    that separate modules can add keys without editing one shared file)."""
    merged: dict[str, dict[str, str]] = {}
    # The package's own files, read with os (importlib.resources would
    # import tempfile and pathlib, ~10 ms of every `print`).
    folder = os.path.join(os.path.dirname(__file__), "data", "strings")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as file:
            entries = json.load(file)
        for key, texts in entries.items():
            if key in merged:
                raise RuntimeError(f"string key {key!r} defined twice ({name})")
            merged[key] = texts
    return merged


def t(key: str, lang: str = DEFAULT_LANG, **params: object) -> str:
    """The string `key` in `lang`, formatted with `params`."""
    texts = catalog()[key]
    text = texts.get(lang) or texts[DEFAULT_LANG]
    return text.format(**params) if params else text


def pick(texts: dict[str, str], lang: str) -> str:
    """One language out of an {"en": ..., "zh": ...} mapping from data."""
    return texts.get(lang) or texts[DEFAULT_LANG]


def lang_from_env(environ: dict[str, str] | None = None) -> str:
    """zh* in LC_ALL / LC_MESSAGES / LANG (first one set wins) -> Chinese."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return DEFAULT_LANG
