"""print / json beyond the explorer's 32 + 32: the selected row's numbers
equal the explorer's own where both can show the configuration, and a dense
numpy computation over the explorer's own inputs where only a table fits;
the overview's block counts equal create_block_mask's."""

import json
import math

import numpy as np
import pytest

from maskattn_tui.cli import main
from maskattn_tui.engine.attention import attend
from maskattn_tui.explore.config import ExploreConfig, generate_inputs
from maskattn_tui.scale.explore_big import big_config, overview, row_numbers

SMALL = [
    dict(past=20, new=12, window=7),
    dict(past=0, new=32, chunk=5, pad=3),
    dict(past=4, new=28, documents=(10, 12, 10), temperature=0.5, seed=7),
    dict(past=10, new=20, prefix=6, pad=2, pad_side="right"),
    dict(past=3, new=5, pad=4, empty_row_policy="uniform"),
    dict(past=3, new=5, pad=4, empty_row_policy="zeros"),
    dict(past=3, new=6, tree=(-1, 0, 0, 1, 2, 2)),
]


@pytest.mark.parametrize("fields", SMALL, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()))
def test_row_numbers_equal_the_explorers(fields):
    config = ExploreConfig(**fields)
    q, k, v = config.inputs()
    result = attend(q, k, v, config.table(), config.temperature, config.empty_row_policy, strict=False)
    big = big_config(fields)
    runs, _ = overview(big)
    for row in range(config.new):
        n = row_numbers(big, runs, row)
        allowed = config.table().allowed[row]
        assert n.count == sum(allowed)
        assert [j for a, b in n.runs for j in range(a, b + 1)] == [j for j, ok in enumerate(allowed) if ok]
        weights = result.weights[row]
        if weights is None:
            assert n.output is None and n.count == 0
            continue
        assert n.output == pytest.approx(result.outputs[row][0], rel=1e-12, abs=1e-12)
        if n.count:
            top = sorted(range(len(weights)), key=lambda j: (-weights[j], j))[: len(n.top)]
            assert [key for key, *_ in n.top] == top
            assert [w for _, w, _, _ in n.top] == pytest.approx([weights[j] for j in top], rel=1e-12)


def test_row_numbers_equal_a_dense_computation_at_3000_positions():
    fields = dict(past=1000, new=2000, window=700, documents=(1200, 800, 1000))
    big = big_config(fields)
    q, k, v = (np.array(m, dtype=float) for m in generate_inputs(1000, 2000, 0))
    allowed = big.rule.table_rows(slice(None))
    scores = q @ k.T / math.sqrt(2)
    runs, _ = overview(big)
    for row in (0, 199, 200, 1999):
        s = np.where(allowed[row], scores[row], -np.inf)
        w = np.exp(s - s.max())
        w /= w.sum()
        n = row_numbers(big, runs, row)
        assert n.count == int(allowed[row].sum())
        assert n.output == pytest.approx(float(w @ v[:, 0]), rel=1e-12)
        assert n.top[0][1] == pytest.approx(w.max(), rel=1e-12)


def test_json_at_131072_positions(capsys):
    assert main(["json", "--past", "0", "--new", "131072", "--window", "4096", "--row", "100000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    row = doc["row"]
    assert row["count"] == 4096 and row["runs"] == [[100000 - 4095, 100000]]
    assert doc["blocks"]["partial"] + doc["blocks"]["full"] + doc["blocks"]["empty"] == 1024 * 1024
    assert doc["blocks"]["kv_num_blocks"][:3] == [1, 2, 1] or doc["blocks"]["kv_num_blocks"][0] == 1


def test_overview_counts_equal_create_block_mask():
    torch = pytest.importorskip("torch")
    from torch.nn.attention.flex_attention import create_block_mask

    big = big_config(dict(past=100, new=900, window=300))
    _, blocks = overview(big)

    def mod(b, h, q_idx, kv_idx):
        p = q_idx + 100
        return (kv_idx <= p) & (kv_idx > p - 300)

    bm = create_block_mask(mod, 1, 1, 900, 1000, device="cpu")
    assert blocks.kv_num_blocks.tolist() == bm.kv_num_blocks[0, 0].tolist()
    assert blocks.full_kv_num_blocks.tolist() == bm.full_kv_num_blocks[0, 0].tolist()


@pytest.mark.parametrize("argv,says", [
    (["print", "--new", "5000", "--row", "5000"], "--row 5000"),
    (["print", "--new", "5000", "--lens", "sdpa"], "--lens"),
    (["json", "--new", "5000", "--documents", "1,2"], "--documents"),
    (["print", "--new", "2000000"], "--new"),
])
def test_bad_big_configurations_are_one_line(capsys, argv, says):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]


def test_print_shows_the_overview_and_the_row_in_both_languages(capsys):
    for lang, word in (("en", "visible keys"), ("zh", "个可见 Key")):
        assert main(["print", "--lang", lang, "--new", "131072", "--window", "4096", "--width", "80"]) == 0
        out = capsys.readouterr().out
        assert word in out and "█" in out or "░" in out
        assert max(len(line) for line in out.splitlines()[3:30]) <= 80


def test_drill_down_cells_equal_the_explorers_table(capsys):
    fields = dict(past=10, new=20, window=7, pad=2)
    assert main(["json", "--past", "10", "--new", "20", "--window", "7", "--pad", "2", "--row", "3", "--key", "0"]) == 0
    cells = json.loads(capsys.readouterr().out)["cells"]
    allowed = ExploreConfig(**fields).table().allowed
    assert cells["rows"] == [3, 18] and cells["keys"] == [0, 29]  # 16 rows, every key (64 at most)
    assert cells["visible"] == ["".join("1" if ok else "0" for ok in allowed[r]) for r in range(3, 19)]
    assert main(["print", "--new", "131072", "--window", "4096", "--row", "4093", "--key", "0", "--width", "60"]) == 0
    out = capsys.readouterr().out.splitlines()
    row = next(line for line in out if line.strip().startswith("q4099 "))
    assert row.split()[1].startswith("····█")  # position 4099 sees keys 4..4099: 0-3 hidden
    assert main(["print", "--new", "100", "--key", "500"]) == 2


def test_an_overview_of_a_million_positions_keeps_its_block_map_small(capsys):
    assert main(["json", "--past", "0", "--new", "1048576", "--chunk", "65536", "--row", "70000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["blocks"]["block_size"] == [512, 512] and doc["blocks"]["total"] == 2048 * 2048
    assert doc["row"]["count"] == 70000 - 65536 + 1 and doc["row"]["runs"] == [[65536, 70000]]



def test_json_writes_null_for_a_nan_row_beyond_32_as_below(capsys):
    # issue 35 item 3: the nan policy's empty row was "cannot write JSON" (exit 2)
    assert main(["json", "--past", "0", "--new", "40", "--pad", "10", "--empty-row", "nan", "--row", "5"]) == 0
    row = json.loads(capsys.readouterr().out)["row"]
    assert row["count"] == 0 and row["output"] is None and row["empty_row_policy"] == "nan"
    # the small explorer writes the same row as null too (docs/json.md)
    assert main(["json", "--past", "0", "--new", "30", "--pad", "10", "--empty-row", "nan"]) == 0
    step = json.loads(capsys.readouterr().out)["steps"][0]
    assert step["outputs"][5] is None


@pytest.mark.parametrize("argv, past", [([], 0), (["--past", "5"], 5), (["--past", "3"], 3)])
def test_a_long_configuration_reads_past_0_unless_given(capsys, argv, past):
    # issue 35 item 4: the explorer's default past 3 gave 131,072 x 131,075 silently
    assert main(["json", "--new", "131072", "--window", "4096", *argv]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["config"]["past"] == past and doc["keys"] == 131072 + past and doc["queries"] == 131072
    assert main(["print", "--new", "131072", "--window", "4096", *argv]) == 0
    title = capsys.readouterr().out.splitlines()[0]
    assert title.startswith(f"{131072 + past} positions (past {past} + new 131072)")
