"""Snapshots of mask mode (pytest-textual-snapshot): a 6x6 mask with one
leaked cell (the leak selected), torch is_causal=True with a cache (a
top-left 2x5), and a 4096x4096 mask as a block overview. Every SVG was
looked at as a PNG before it was accepted. Update with `pytest
tests/test_tui_mask_snapshots.py --snapshot-update` (never with -k)."""

from __future__ import annotations

import numpy as np
import pytest

from maskattn_tui.maskmode.saved_doc import open_mask
from maskattn_tui.tui import make_app

SIZES = [(80, 24), (120, 36)]


def leak() -> np.ndarray:
    mask = np.tril(np.ones((6, 6), dtype=bool))
    mask[1, 4] = True
    return mask


def top_left() -> np.ndarray:
    return np.tril(np.ones((2, 5), dtype=bool))


def big() -> np.ndarray:
    mask = np.tril(np.ones((4096, 4096), dtype=bool))
    mask[100, 3000] = True
    return mask


#: name -> (the mask, keys pressed once the app is up)
MASKS = {"leak6": (leak, ["down", "right", "right", "right", "right"]),
         "topleft2x5": (top_left, ["down"]),
         "blocks4096": (big, ["right"])}
#: Each mask once in English, two in Chinese, both sizes; mask mode's panes
#: at other sizes and languages are read as text in test_tui_mask.py and
#: test_tui_mask_nav.py.
CASES = [pytest.param(name, lang, size, id=f"{name}-{lang}-{size[0]}x{size[1]}")
         for name, lang, size in (("leak6", "en", SIZES[0]), ("leak6", "zh", SIZES[1]),
                                  ("topleft2x5", "en", SIZES[0]),
                                  ("blocks4096", "en", SIZES[1]), ("blocks4096", "zh", SIZES[0]))]


@pytest.mark.parametrize("name,lang,size", CASES)
def test_mask_mode(snap_compare, tmp_path, monkeypatch, name, lang, size):
    build, keys = MASKS[name]
    monkeypatch.chdir(tmp_path)  # the file is named as given: "leak6.npy", the same in every run
    np.save(f"{name}.npy", build())
    app = make_app(lang=lang, mask=open_mask(f"{name}.npy"))
    assert snap_compare(app, press=keys, terminal_size=size)
