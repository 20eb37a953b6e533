"""The figure and bar blocks (what the app's panes and `print` draw),
without an app, on a recording console."""

import re

import pytest
from rich.console import Console

from maskattn_tui.render.bar_lines import bar_block, bar_cells
from maskattn_tui.render.blocks import AtWidth
from maskattn_tui.render.figure_lines import Room, build_figure
from maskattn_tui.render.palette import ASCII, Palette, default_palette
from maskattn_tui.lesson.f12 import load_f12
from maskattn_tui.lesson.stepview import build_view
from helpers import grid_rows


def mask_grid(view, row, lang, palette):
    return AtWidth(lambda width: build_figure(view, row, lang, palette, Room(width)))


def softmax_bars(view, row, lang, palette):
    return AtWidth(lambda width: bar_block([view], view, row, lang, palette, width))


def bar_text(p, width, palette):
    return "".join(bar_cells(p, width, palette))


def render(renderable, width=100, color=False):
    console = Console(width=width, record=True, force_terminal=color, color_system="truecolor" if color else None)
    console.print(renderable)
    return console.export_text()


def view(step):
    f = load_f12()
    return build_view(f.steps[step - 1], len(f.steps))


@pytest.mark.parametrize("step", [1, 2, 3])
def test_grid_shows_the_causal_triangle(step):
    text = render(mask_grid(view(step), step - 1, "en", default_palette()))
    expected = {f"q{i}": ["✓" if j <= i else "F" for j in range(3)] for i in range(3)}
    assert dict(grid_rows(text)) == expected
    focus_line = next(line for line in text.splitlines() if f"q{step - 1} " in line)
    assert "▶" in focus_line and "●" in focus_line


def test_grid_marks_pad_and_both():
    from maskattn_tui.lesson.f12 import StepSpec

    spec = StepSpec(step=1, kind="rows", q=((1.0,),) * 2, k=((1.0,),) * 3, v=((1.0,),) * 3,
                    query_positions=(1, 2), key_positions=(0, 1, 2), key_is_pad=(False, False, True),
                    empty_row_policy="zeros", title={"en": ""}, condition={"en": ""}, caption={"en": ""})
    text = render(mask_grid(build_view(spec, 1), 0, "en", default_palette()))
    assert dict(grid_rows(text)) == {"q1": ["✓", "✓", "FP"], "q2": ["✓", "✓", "P"]}
    assert re.search(r"q2 PAD\s*│", text)  # the query's own position 2 is the PAD key's


def test_step5_marks_the_cells_the_row_number_mistake_changes():
    text = render(mask_grid(view(5), 0, "en", default_palette()), width=120)
    assert "Mistake" in text and "Correct" in text
    # 6 cells differ between 11110/11111 and 10000/11000.
    rows = [line for line in text.splitlines() if "q3 " in line or "q4 " in line]
    assert sum(line.count("!") for line in rows) == 6
    assert "cache" in text and "new" in text


def test_step4_numbers():
    text = render(mask_grid(view(4), 0, "en", default_palette()), width=120)
    for number in ("0.0900", "0.2447", "0.6652", "0.2689", "0.7311", "11.1073", "3.7183", "25.7521", "17.3106"):
        assert number in text
    assert "−∞" in text


@pytest.mark.parametrize("step, row, probs", [
    (2, 1, ["0.3302", "0.6698", "0.0000"]),
    (3, 2, ["0.2483", "0.2483", "0.5035"]),
])
def test_bars_show_the_chapter_probabilities(step, row, probs):
    text = render(softmax_bars(view(step), row, "en", default_palette()))
    lines = [line for line in text.splitlines() if re.match(r"^k\d", line)]
    assert [re.search(r"\d\.\d{4}", line).group(0) for line in lines] == probs
    if step == 2:
        assert "blocked: future" in lines[2]
    assert "not factual confidence" in text


def test_bar_lengths_are_proportional():
    palette = default_palette()
    assert bar_text(0.5, 20, palette) == "█" * 10 + "·" * 10
    assert bar_text(0.0, 8, palette) == "·" * 8
    assert bar_text(1.0, 8, palette) == "█" * 8
    assert bar_text(0.5625, 8, palette) == "████▌···"  # 4.5 cells
    ascii_bar = bar_text(0.5625, 8, Palette(glyphs=ASCII))
    assert ascii_bar == "####...." or ascii_bar == "#####..."


def test_ascii_palette_renders_ascii_only_grid_and_bars():
    palette = default_palette(ascii=True)
    for step in range(1, 6):
        v = view(step)
        text = render(mask_grid(v, 0, "en", palette), width=140) + render(softmax_bars(v, 0, "en", palette))
        non_ascii = {ch for ch in text if ord(ch) > 127}
        assert not non_ascii, non_ascii


def test_no_color_palette_has_no_colours():
    text_console = Console(width=100, record=True, force_terminal=True, color_system="truecolor")
    text_console.print(mask_grid(view(2), 1, "en", default_palette(color=False)))
    ansi = text_console.export_text(styles=True)
    assert "38;" not in ansi and "48;" not in ansi
    colour_console = Console(width=100, record=True, force_terminal=True, color_system="truecolor")
    colour_console.print(mask_grid(view(2), 1, "en", default_palette()))
    assert "48;" in colour_console.export_text(styles=True)


def test_empty_row_is_explained():
    from maskattn_tui.lesson.f12 import StepSpec

    spec = StepSpec(step=1, kind="rows", q=((1.0,),), k=((1.0,), (2.0,)), v=((1.0,), (2.0,)),
                    query_positions=(0,), key_positions=(0, 1), key_is_pad=(True, False),
                    empty_row_policy="uniform", title={"en": ""}, condition={"en": ""}, caption={"en": ""})
    text = render(softmax_bars(build_view(spec, 1), 0, "en", default_palette()))
    assert "silent leak" in text and "0.5000" in text
