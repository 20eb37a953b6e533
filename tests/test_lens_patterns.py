"""The API lens on the mask patterns: each API's own number for the same
window, what each cannot express, and the flex lens's mask_mod source,
run through FlexAttention's create_mask, reproducing the table."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given

from maskattn_tui.explore.api_lens import LENS_NAMES, lens
from maskattn_tui.explore.config import ExploreConfig

from helpers import seeded
from test_mask_patterns import CONFIGS


def run_mask_mod(source: str, new: int, length: int) -> list[list[bool]]:
    """The source executed with real torch and materialised by FlexAttention's
    create_mask, which calls mask_mod on local indices as create_block_mask does."""
    pytest.importorskip("torch")
    from torch.nn.attention.flex_attention import create_mask

    namespace: dict = {}
    exec(compile(source, "<mask_mod>", "exec"), namespace)  # our own generated source, not a user's
    return create_mask(namespace["mask_mod"], 1, 1, new, length, device="cpu")[0, 0].tolist()


def check_only_torch_and_literals(source: str) -> None:
    tree = ast.parse(source)
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [a.name for n in imports for a in n.names] == ["torch"]
    calls = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert calls <= {"torch.tensor"}, calls
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert [f.name for f in funcs] == ["mask_mod"]
    assert [a.arg for a in funcs[0].args.args] == ["b", "h", "q_idx", "kv_idx"]


@seeded(120)
@given(config=CONFIGS)
def test_the_flex_source_reproduces_the_table(config):
    table = config.table()
    entry = lens(table, "flex")
    source = entry["value"]
    check_only_torch_and_literals(source)
    assert f"create_block_mask(mask_mod, 1, 1, {config.new}, {config.length}" in source
    assert run_mask_mod(source, config.new, config.length) == [list(r) for r in table.allowed]


def test_the_flex_source_of_the_published_tables():
    cases = [
        (ExploreConfig(past=4, new=2, window=3), ["001110", "000111"]),
        (ExploreConfig(past=3, new=5, tree=(-1, 0, 0, 1, 2)),
         ["11110000", "11111000", "11110100", "11111010", "11110101"]),
    ]
    for config, want in cases:
        got = run_mask_mod(lens(config.table(), "flex")["value"], config.new, config.length)
        assert ["".join("1" if x else "0" for x in row) for row in got] == want


def test_the_flex_source_with_real_torch():
    torch = pytest.importorskip("torch")  # only the torch call is skipped without torch
    from torch.nn.attention.flex_attention import create_mask

    config = ExploreConfig(past=3, new=5, tree=(-1, 0, 0, 1, 2))
    namespace: dict = {}
    exec(lens(config.table(), "flex")["value"], namespace)
    dense = create_mask(namespace["mask_mod"], 1, 1, config.new, config.length, device="cpu")[0, 0]
    assert dense.tolist() == [list(r) for r in config.table().allowed]
    assert torch  # imported


def test_each_api_gives_its_own_number_for_the_same_window():
    table = ExploreConfig(past=4, new=2, window=3).table()
    hf, flash, flex = (lens(table, n) for n in ("hf", "flash", "flex"))
    assert hf["arguments"] == {"sliding_window": 3}
    assert flash["arguments"] == {"window_size": [2, 0]}  # FlashAttention keeps [i-left, i+right]
    assert flex["arguments"] == {"WINDOW": 3}
    for entry in (hf, flash, flex):
        assert entry["matches"], entry["lens"]


def test_flash_window_size_is_a_distance_an_independent_check():
    # FA keeps keys in [i - left, i] (bottom-right): left = W - 1 gives W keys per full row
    for w in range(1, 5):
        table = ExploreConfig(past=5, new=3, window=w).table()
        left = lens(table, "flash")["arguments"]["window_size"][0]
        for r, p in enumerate(table.query_positions):
            assert [p - left <= k <= p for k in table.key_positions] == list(table.allowed[r])


def test_hf_chunk_and_flash_cannot():
    table = ExploreConfig(past=2, new=6, chunk=4).table()
    hf, flash = lens(table, "hf"), lens(table, "flash")
    assert hf["arguments"] == {"attention_chunk_size": 4} and hf["matches"]
    assert not flash["matches"] and len(flash["limits"]) == 1


def test_every_lens_says_what_it_cannot_express_for_a_tree():
    table = ExploreConfig(past=3, new=5, tree=(-1, 0, 0, 1, 2)).table()
    for name in LENS_NAMES:
        entry = lens(table, name, "zh")
        if name == "flex":
            assert entry["limits"] == [] and entry["matches"]
        else:
            assert entry["limits"], name
    assert not lens(table, "torch-is-causal")["matches"]
    assert not lens(table, "hf")["matches"]


def test_hf_documents_only_without_cache_and_attention_mask():
    packed = ExploreConfig(past=0, new=8, documents=(3, 2, 3)).table()
    entry = lens(packed, "hf")
    assert entry["matches"] and entry["arguments"]["attention_mask"] is None
    assert entry["arguments"]["position_ids"] == [0, 1, 2, 0, 1, 0, 1, 2]
    cached = ExploreConfig(past=3, new=5, documents=(3, 2, 3)).table()
    entry = lens(cached, "hf")
    assert not entry["matches"] and entry["limits"]
    flash = lens(cached, "flash")
    assert flash["arguments"]["cu_seqlens_k"] == [0, 3, 5, 8] and flash["matches"]


def test_plain_configurations_have_no_limits_and_no_arguments():
    table = ExploreConfig(past=3, new=2).table()
    for name in LENS_NAMES:
        entry = lens(table, name)
        assert entry["limits"] == [] and entry["arguments"] == {}
    # FlashAttention alone has no padding mask
    padded = ExploreConfig(past=3, new=2, pad=1).table()
    for name in LENS_NAMES:
        entry = lens(padded, name)
        assert entry["arguments"] == {}
        assert len(entry["limits"]) == (name == "flash"), name
    assert not lens(padded, "flash")["matches"]
