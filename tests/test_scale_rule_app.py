"""The app on an explore configuration beyond 32 + 32 (`maskattn-tui --new
131072 --window 4096`): mask mode over the rule's runs. The selected row's
weights equal the explorer's own attention (small) and a dense numpy
softmax over the explorer's inputs (3,000 positions); block counts equal
dense tile sums and scale's block map; the app opens at 131,072 in a pilot."""

import asyncio
import math
import time

import numpy as np
import pytest

from maskattn_tui.cli.parser import build_parser
from maskattn_tui.doctor.blocks import tile_counts
from maskattn_tui.engine.attention import attend
from maskattn_tui.explore.config import ExploreConfig, generate_inputs
from maskattn_tui.scale.blocks import from_runs
from maskattn_tui.scale.explore_big import big_config
from maskattn_tui.cli.big_config import big_config_from_args
from maskattn_tui.maskmode.rule_doc import RuleDoc
from maskattn_tui.maskmode.rule_tables import block_counts

SMALL = [
    dict(past=20, new=12, window=7),
    dict(past=0, new=32, chunk=5, pad=3),
    dict(past=4, new=28, documents=(10, 12, 10), temperature=0.5, seed=7),
    dict(past=10, new=20, prefix=6, pad=2, pad_side="right"),
]


@pytest.mark.parametrize("fields", SMALL, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()))
def test_row_weights_equal_the_explorers(fields):
    config = ExploreConfig(**fields)
    q, k, v = config.inputs()
    result = attend(q, k, v, config.table(), config.temperature, config.empty_row_policy, strict=False)
    doc = RuleDoc(big_config(fields))
    for row in range(config.new):
        w = doc.weights(row)
        assert w.visible.tolist() == list(config.table().allowed[row])
        if result.weights[row] is None:
            assert w.empty
            continue
        assert w.weights == pytest.approx(np.array(result.weights[row], dtype=float), rel=1e-12, abs=1e-15)
        out = doc.row_lines(row, "en")[-1]
        assert f"output {result.outputs[row][0]:.6g}" in out


def test_row_weights_equal_a_dense_softmax_at_3000_positions():
    fields = dict(past=1000, new=2000, window=700, documents=(1200, 800, 1000), pad=30)
    doc = RuleDoc(big_config(fields))
    q, k, v = (np.array(m, dtype=float) for m in generate_inputs(1000, 2000, 0))
    allowed = doc.config.rule.table_rows(slice(None))  # the rule's dense table, cell by cell
    scores = q @ k.T / math.sqrt(2)
    for row in (0, 199, 200, 1234, 1999):
        s = np.where(allowed[row], scores[row], -np.inf)
        w = np.exp(s - s.max())
        w /= w.sum()
        got = doc.weights(row)
        assert got.count == int(allowed[row].sum())
        np.testing.assert_allclose(got.weights, w, rtol=1e-12, atol=1e-15)
        lines = doc.row_lines(row, "en")
        assert f"{got.count:,} visible {'key' if got.count == 1 else 'keys'}" in lines[0]
        assert f"output {float(w @ v[:, 0]):.6g}" in lines[-1]
        # the largest weight is listed first, by its key
        assert f"key {int(np.argmax(w))} " in lines[1]


CONFIGS = [
    dict(past=5, new=3000, window=700),
    dict(past=0, new=3000, chunk=1000, pad=37),
    dict(past=0, new=2999, documents=(1000, 999, 1000)),
    dict(past=100, new=2900, prefix=300, pad=5, pad_side="right"),
    dict(past=3, new=2997, causal=False, pad=11),
    dict(past=3, new=2997, window=513, pad=9),
    dict(past=2, new=1500, tree=(-1, *((i - 1) // 2 for i in range(1, 1500)))),  # a binary draft tree
]


@pytest.mark.parametrize("fields", CONFIGS, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()))
@pytest.mark.parametrize("size", [8, 64, 128, 1000])
def test_block_counts_equal_dense_tile_sums_and_the_block_map(fields, size):
    doc = RuleDoc(big_config(fields))
    table = doc.config.rule.table_rows(slice(None))
    counts = block_counts(doc.tables.runs, size)
    np.testing.assert_array_equal(counts, tile_counts(table, size, size))
    if size >= doc.tables.least:
        kind = doc.tables.blocks(size).category("user")
        np.testing.assert_array_equal(kind, from_runs(doc.tables.runs, size, size).kind)
    stats = doc.tables.block_stats(size)
    c = from_runs(doc.tables.runs, size, size).counts()
    assert (stats.full, stats.partial, stats.empty) == (c["full"], c["partial"], c["empty"])
    assert stats.visible == int(table.sum())


def test_a_bad_big_option_is_one_line(capsys):
    from maskattn_tui.cli import main

    assert main(["--new", "131072", "--window", "4096", "--tree", "-1,0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]


def test_the_app_opens_at_131072_with_a_window_of_4096():
    from maskattn_tui.maskmode.sources import BlockSource, CellSource
    from maskattn_tui.tui.app import make_app
    from maskattn_tui.tui.mask_screen import MaskScreen

    start = time.perf_counter()
    args = build_parser().parse_args(["--past", "0", "--new", "131072", "--window", "4096"])
    doc = RuleDoc(big_config_from_args(args), "en")
    app = make_app(mask=doc)

    async def run() -> None:
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, MaskScreen)
            opened = time.perf_counter() - start
            assert opened < 10, opened
            state = screen.state
            assert not state.cells and state.size >= doc.tables.least
            # the overview the grid draws is scale's block map at that size
            grid = screen.query_one("#mask-grid")
            user, _ = grid.sources(state)
            assert isinstance(user, BlockSource)
            kind = from_runs(doc.tables.runs, state.size, state.size).kind
            names = {0: "block.empty", 1: "block.partial", 2: "block.full"}
            assert [[user.cell(r, c) for c in range(user.cols)] for r in range(user.rows)] == \
                [[names[int(x)] for x in row] for row in kind]
            await pilot.press("down", "down", "right")
            await pilot.pause()
            assert screen.state.place == (2 * state.size, state.size)
            await pilot.press("enter")
            await pilot.pause()
            inside = screen.state
            assert inside.window is not None and inside.cells
            cells, _ = grid.sources(inside)
            assert isinstance(cells, CellSource)
            r0, _, c0, _ = inside.window
            band = doc.tables.runs.band(r0, r0 + 5, c0, c0 + 40)
            assert [[cells.cell(r, c) == "allowed" for c in range(40)] for r in range(5)] == band.tolist()
            await pilot.press("down")
            await pilot.pause()
            row = screen.state.place[0]
            assert doc.weights(row).count == min(row + 1, 4096)
            explain = screen.query_one("#mask-explain")
            text = "\n".join(str(line) for line in explain.figure.lines)
            assert f"{min(row + 1, 4096):,} visible keys" in text
            await pilot.press("escape")
            await pilot.pause()
            assert screen.state.window is None and screen.state.place == (2 * state.size, state.size)

    asyncio.run(run())


def test_the_command_line_opens_the_app_on_a_big_configuration(monkeypatch):
    """`maskattn-tui --new 131072 --window 4096` (it used to refuse, exit 2,
    pointing to print / json): the app, run headless, in mask mode on the rule."""
    from maskattn_tui.cli import main
    from maskattn_tui.tui.app import MaskattnApp
    from maskattn_tui.tui.mask_screen import MaskScreen

    seen = []

    def headless(self, *args, **kwargs):
        async def go() -> None:
            async with self.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                seen.append((self.screen, self.screen.query_one("#mask-title").render(), self.model.lang))

        asyncio.run(go())

    monkeypatch.setattr(MaskattnApp, "run", headless)
    assert main(["--lang", "zh", "--new", "131072", "--window", "4096"]) == 0
    screen, title, lang = seen[0]
    assert isinstance(screen, MaskScreen) and isinstance(screen.doc, RuleDoc)
    # issue 35 item 4: a long configuration is a prefill, past 0 unless given
    assert lang == "zh" and screen.doc.tables.keys == 131072
    assert "131,072 × 131,072" in str(title)


def test_the_block_statistics_are_counted_once():
    """The explanation pane asks for them at every move (0.1 s each at 131,072)."""
    doc = RuleDoc(big_config(dict(past=0, new=4096, window=300)))
    first = doc.tables.block_stats(128)
    assert doc.tables.block_stats(128) is first
