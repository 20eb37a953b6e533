"""User-facing text, kept as data: every string lives in data/strings/*.json
in both languages; code refers to strings by key only."""

from __future__ import annotations

import json
import os
from functools import lru_cache
from importlib import resources

LANGS = ("en", "zh")
DEFAULT_LANG = "en"


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, str]]:
    """All strings, merged from every file in data/strings (one per area, so
    that separate modules can add keys without editing one shared file)."""
    merged: dict[str, dict[str, str]] = {}
    folder = resources.files("maskattn_tui") / "data" / "strings"
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".json"):
            continue
        for key, texts in json.loads(entry.read_text(encoding="utf-8")).items():
            if key in merged:
                raise RuntimeError(f"string key {key!r} defined twice ({entry.name})")
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


def check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(lang)
    return lang
