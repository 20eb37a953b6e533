"""The figure's inputs line wrapped at every width: no line starts with the
" · " separator (it read as a list bullet, or stood alone: "·"), and no
character but those separators is lost or added."""

from __future__ import annotations

import re

import pytest

from maskattn_tui.explore import ExploreConfig
from maskattn_tui.render.blocks import wrap_text
from maskattn_tui.render.figure_lines import inputs_text, separators_at_ends
from maskattn_tui.render.palette import Palette
from maskattn_tui.tui import make_app


def squeezed(text: str) -> str:
    """The text without spaces and without its separators (a "·" before a
    space; "q·k" stays)."""
    return "".join(re.sub(r"·(?=\s)", "", text.replace("\u00a0", " ")).split())


@pytest.mark.parametrize("kwargs", [dict(), dict(explore=ExploreConfig(past=4, new=2, window=3))],
                         ids=["figure", "explore"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_inputs_line_starts_with_a_separator(kwargs, lang):
    views = make_app(**kwargs).model.views
    for view in views:
        text = inputs_text(view, lang, Palette())
        for width in range(20, 80):
            lines = ["".join(s.text for s in line)
                     for line in separators_at_ends(wrap_text(text, width), width, "·")]
            assert not [x for x in lines if x.lstrip().startswith("· ") or x.strip() == "·"], (width, lines)
            assert all(len(x) <= width for x in lines if width >= 40), (width, lines)
            assert squeezed(" ".join(lines)) == squeezed(text), (width, lines)


def test_a_separator_that_fits_ends_the_line_before():
    from rich.segment import Segment

    lines = [[Segment("Q = [[1]]")], [Segment("· K = [[2]]")]]
    assert ["".join(s.text for s in x) for x in separators_at_ends(lines, 20, "·")] == ["Q = [[1]] ·", "K = [[2]]"]
    # no room for it: left out, the line break separates
    assert ["".join(s.text for s in x) for x in separators_at_ends(lines, 9, "·")] == ["Q = [[1]]", "K = [[2]]"]
