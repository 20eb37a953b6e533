"""User-facing text, kept as data: every string lives in data/strings/*.json
in both languages; code refers to strings by key only."""

from __future__ import annotations

import json
import os
import re
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


#: A count of one before a plural noun (an adjective may come between), and
#: the verb after it: "1 query rows are" -> "1 query row is".
_ONE = re.compile(r"(?<![\w.,\-+/])(?<![+\-*/] )1 "
                  r"((?:query |PAD |unused |new |real |distinct |future |hidden |visible |cache )?)"
                  r"(quer(?=ies)|key|cell|row|slot|slice|block|token|position|call|difference|document|head|mask"
                  r"|layer|step|chunk|column|tile|value|sink|node|byte|reading|weight|label|character|array|score"
                  r"|flag)(ies|s)\b( (?:are|have|were|differ|see|stay|fit)\b)?")
_VERB = {" are": " is", " have": " has", " were": " was", " differ": " differs", " see": " sees", " stay": " stays",
         " fit": " fits"}
#: "(rows 3)": one row named by its index.
_ONE_INDEX = re.compile(r"\((row|key)s (\d+)\)")


def singular_counts(text: str) -> str:
    """English counts of one in the singular: "1 keys" -> "1 key", "1 rows
    have" -> "1 row has", "(rows 0)" -> "(row 0)". The one grammar helper:
    t() applies it to every English string it formats."""
    text = _ONE.sub(lambda m: f"1 {m.group(1)}{m.group(2)}{'y' if m.group(3) == 'ies' else ''}"
                              f"{_VERB.get(m.group(4) or '', m.group(4) or '')}", text)
    return _ONE_INDEX.sub(r"(\1 \2)", text)


def t(key: str, lang: str = DEFAULT_LANG, **params: object) -> str:
    """The string `key` in `lang`, formatted with `params` (English counts
    of one in the singular)."""
    texts = catalog()[key]
    text = texts.get(lang) or texts[DEFAULT_LANG]
    if not params:
        return text
    text = text.format(**params)
    return singular_counts(text) if lang == DEFAULT_LANG or lang not in texts else text


def counted(n: int, noun: str, lang: str = DEFAULT_LANG) -> str:
    """"3 keys", "1 key" (zh "3 个键"): a count and its noun (count.<noun> in
    data/strings/counts.json)."""
    return t(f"count.{noun}", lang, n=f"{n:,}")


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
