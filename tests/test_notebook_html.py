"""The notebook's display (render/notebook.py): the capture summary, a
doctor diagnosis and the mask figure as HTML (`_repr_html_`), drawn by
print's line blocks; the numbers and words checked against numpy's own
reading of each mask, both languages, a colour never without its word;
and one page looked at in headless Chromium."""

from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest

from maskattn_tui.doctor import diagnose
from maskattn_tui.maskmode import open_array


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _leaky() -> tuple[np.ndarray, list[tuple[int, int]]]:
    mask = np.tril(np.ones((5, 5), bool))
    mask[1, 4] = True
    leaks = [tuple(int(v) for v in cell) for cell in np.argwhere(mask & ~np.tril(np.ones((5, 5), bool)))]
    return mask, leaks


@pytest.mark.parametrize("lang,error,words", [
    ("en", "[error]", ["mask: 5 x 5", "bool", "future cells visible: 1"]),
    ("zh", "[错误]", ["掩码：5 x 5", "bool"]),
])
def test_a_diagnosis_shows_its_reading_and_findings_with_level_words(lang, error, words):
    mask, leaks = _leaky()
    page = diagnose(mask).to_html(lang)
    text = _text(page)
    assert leaks == [(1, 4)] and "(1,4)" in text
    assert all(w in text for w in words), text
    # the level's colour (bold red) and its word together, in one span
    assert re.search(r'<span style="color: #800000;[^"]*font-weight: bold">' + re.escape(error), page)
    assert "tril(0)" in text  # the fix, spelled for SDPA
    healthy = _text(diagnose(np.tril(np.ones((5, 5), bool))).to_html(lang))
    assert ("[ok] no problems found" if lang == "en" else "[正常] 未发现问题") in healthy


@pytest.mark.parametrize("lang,legend", [("en", "✓ visible   F hidden: future"), ("zh", "✓ 可见   F 隐藏：未来")])
def test_the_mask_figure_is_mask_modes_page(lang, legend):
    mask, _ = _leaky()
    text = _text(open_array(mask, "leaky").to_html(lang))
    rows = [line for line in text.splitlines() if re.match(r"\s*(●\s*)?q\d", line)]
    # your table beside the rule's, the leaked cell marked ! in both
    q1 = next(line for line in rows if line.split()[0] == "q1")
    assert q1.count("!") == 2
    assert legend in text
    # row 0 of a causal mask sees only key 0: all its weight (numpy: 1 visible key)
    assert int(mask[0].sum()) == 1 and re.search(r"k0 ✓ +█{40} 1\.0000", text)


def test_the_repr_of_each_stays_plain_text():
    mask, _ = _leaky()
    shown = repr(diagnose(mask))
    assert shown.startswith("Diagnosis(shape=(5, 5)") and "<span" not in shown


def test_the_capture_summary_in_a_notebook():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    from maskattn_tui import capture

    q = torch.randn(1, 1, 4, 8)
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    leaky = causal.clone()
    leaky[0, 3] = True
    with capture(tempfile.mkdtemp()) as cap:
        F.scaled_dot_product_attention(q, q, q, attn_mask=causal)
        for _ in range(2):
            F.scaled_dot_product_attention(q, q, q, attn_mask=leaky)
    summary = cap.summary()
    assert repr(summary) == str(summary) and summary.count("\n") == 1  # the text, two masks
    text = _text(summary._repr_html_())
    ok, error = [line for line in text.splitlines() if line.startswith("[")]
    assert ok.startswith("[ok] mask") and "4x4" in ok and "#0 (1)" in ok
    assert error.startswith("[error] mask") and "leak" in error and "#1-2 (2)" in error
    assert "2 distinct mask(s)" in text
    zh = _text(cap.summary("zh")._repr_html_())
    assert "[错误] 掩码" in zh and "[正常] 掩码" in zh and "2 个不同的掩码" in zh


def test_a_diagnosis_page_in_chromium():
    from browser import chromium

    mask, _ = _leaky()
    page = Path(tempfile.mkdtemp()) / "diagnosis.html"
    page.write_text("<!doctype html><meta charset=utf-8><body>" + diagnose(mask).to_html("zh")
                    + open_array(mask, "leaky").to_html("en") + "</body>", encoding="utf-8")
    browser = chromium(1000, 1300)
    try:
        browser.get(page.as_uri())
        shown = browser.execute_script("return document.body.innerText")
        assert "[错误]" in shown and "(1,4)" in shown and "✓ visible" in shown
        colour = browser.execute_script(
            "return [...document.querySelectorAll('span')].filter(s => s.textContent.startsWith('[错误]'))"
            ".map(s => getComputedStyle(s).color)")
        assert colour == ["rgb(128, 0, 0)"]
        browser.get_screenshot_as_file("/tmp/maskattn-notebook.png")
    finally:
        browser.quit()
