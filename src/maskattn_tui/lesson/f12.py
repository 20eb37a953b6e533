"""The F12 figure as data: data/f12.json holds each step's declared inputs,
condition and caption, and the five explanation sections, in both languages.
This module only reads it into frozen records."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache

Texts = dict  # {"en": str, "zh": str}


@dataclass(frozen=True)
class StepSpec:
    """One configuration to show: declared inputs plus its words."""

    step: int
    kind: str  # rows | compare | cache | explore
    q: tuple
    k: tuple
    v: tuple
    query_positions: tuple[int, ...]
    key_positions: tuple[int, ...]
    key_is_pad: tuple[bool, ...]
    causal: bool = True
    temperature: float = 1.0
    empty_row_policy: str = "error"
    past: int = 0
    focus_rows: tuple[int, ...] = (0,)
    title: Texts = field(default_factory=dict, compare=False)
    condition: Texts = field(default_factory=dict, compare=False)
    caption: Texts = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Section:
    id: str
    title: Texts
    body: Texts


@dataclass(frozen=True)
class Figure:
    title: Texts
    question: Texts
    idea: Texts
    glossary: tuple[dict, ...]
    inputs_note: Texts
    reading_order: Texts
    sections: tuple[Section, ...]
    steps: tuple[StepSpec, ...]


def _tuple2(rows) -> tuple:
    return tuple(tuple(r) for r in rows)


def step_from_dict(d: dict) -> StepSpec:
    return StepSpec(
        step=int(d["step"]),
        kind=d["kind"],
        q=_tuple2(d["q"]),
        k=_tuple2(d["k"]),
        v=_tuple2(d["v"]),
        query_positions=tuple(d["query_positions"]),
        key_positions=tuple(d["key_positions"]),
        key_is_pad=tuple(d["key_is_pad"]),
        causal=bool(d["causal"]),
        temperature=float(d["temperature"]),
        empty_row_policy=d["empty_row_policy"],
        past=int(d["past"]),
        focus_rows=tuple(d["focus_rows"]),
        title=d["title"],
        condition=d["condition"],
        caption=d["caption"],
    )


@lru_cache(maxsize=1)
def load_f12() -> Figure:
    raw = json.loads(_read_data("f12.json"))
    return Figure(
        title=raw["title"],
        question=raw["question"],
        idea=raw["idea"],
        glossary=tuple(raw["glossary"]),
        inputs_note=raw["inputs_note"],
        reading_order=raw["reading_order"],
        sections=tuple(Section(s["id"], s["title"], s["body"]) for s in raw["sections"]),
        steps=tuple(step_from_dict(s) for s in raw["steps"]),
    )


def _read_data(name: str) -> str:
    """A file of the package's data/ folder (with os: importlib.resources
    would import tempfile and pathlib for the same path)."""
    with open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", name), encoding="utf-8") as file:
        return file.read()
