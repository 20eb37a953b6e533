"""doctor --attention-mask ... --position-ids ...: position ids that restart
at 0 are packed documents. What the finding claims about transformers 5.24
is checked here against what the library builds (create_causal_mask with
and without an attention_mask and a cache); left padding with arange
positions stays the error it is."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from helpers import run_main
from intent_hf import as_bool, build, filled_cache
from transformers import LlamaConfig

from maskattn_tui.doctor.hf_pair import hf_pair

TINY = dict(num_attention_heads=2, num_key_value_heads=1, head_dim=4, hidden_size=8, vocab_size=16,
            num_hidden_layers=1)


def _hf(ids, *, attention_mask: bool, cache: bool) -> np.ndarray:
    config = LlamaConfig(**TINY)
    n = len(ids)
    mask, _ = build("create_causal_mask", config, q_len=n, position_ids=torch.tensor([ids]),
                    attention_mask=np.ones((1, n)) if attention_mask else None,
                    cache=filled_cache(config, 0) if cache else None)
    return as_bool(mask, 1, n, n)[0]


def _across(table: np.ndarray, docs) -> set[tuple[int, int]]:
    doc = np.concatenate([[i] * (b - a + 1) for i, (a, b) in enumerate(docs)])
    return {(int(r), int(k)) for r, k in zip(*np.nonzero(table & (doc[:, None] != doc[None, :])))}


@pytest.mark.parametrize("ids", [[0, 1, 2, 0, 1], [0, 1, 0, 1, 2, 3, 0], [0, 0, 1, 2]])
def test_restarting_position_ids_are_packed_documents(ids):
    n = len(ids)
    pair = hf_pair([1] * n, list(ids))
    finding = next(f for f in pair.findings if f.code == "packed-positions")
    assert not [f for f in pair.findings if f.level == "error"]
    with_mask = _hf(ids, attention_mask=True, cache=False)
    np.testing.assert_array_equal(pair.table, with_mask)  # what the library builds given this attention_mask
    leaks = _across(with_mask, pair.documents)
    assert finding.level == "warning" and finding.count == len(leaks) and set(finding.cells) <= leaks
    # neither attention_mask nor cache: the block-diagonal table the finding names, row by row
    alone = _hf(ids, attention_mask=False, cache=False)
    assert not _across(alone, pair.documents)
    assert finding.params["block"] == " ".join("".join("#" if v else "." for v in row) for row in alone)
    # a plain forward makes a cache: the documents see each other again
    assert _across(_hf(ids, attention_mask=False, cache=True), pair.documents) == leaks


def test_the_command_line_says_packing_not_wrong_positions():
    ran = run_main("doctor", "--attention-mask", "1,1,1,1,1", "--position-ids", "0,1,2,0,1", "--lang", "en")
    text = " ".join(ran.stdout.split())
    assert ran.returncode == 0
    assert "packed documents [0-2] [3-4]" in text and "use_cache=False" in text and "varlen" in text
    assert "other than cumsum" not in text and "[error]" not in text
    assert run_main("doctor", "--attention-mask", "1,1,1,1,1", "--position-ids", "0,1,2,0,1",
                    "--strict").returncode == 0
    zh = run_main("doctor", "--attention-mask", "1,1,1,1,1", "--position-ids", "0,1,2,0,1", "--lang", "zh")
    assert "打包" in zh.stdout
    doc = json.loads(run_main("doctor", "--attention-mask", "1,1,1,1,1", "--position-ids", "0,1,2,0,1",
                              "--json").stdout)
    assert doc["packed_documents"] == [[0, 2], [3, 4]]
    assert [f["code"] for f in doc["findings"] if f["level"] != "info"] == ["packed-positions"]


def test_left_padding_with_arange_positions_is_still_the_error():
    pair = hf_pair([0, 0, 1, 1, 1], [0, 1, 2, 3, 4])
    assert pair.documents is None
    assert [(f.code, f.level) for f in pair.findings if f.level == "error"] == [("positions-shifted", "error")]


@pytest.mark.parametrize("ids", [[0, 1, 2, 2, 3], [5, 6, 0, 1], [0, 1, 2, 3, 4, 0]])
def test_ids_that_are_no_packing_keep_the_positions_check(ids):
    """A repeated id, or a first piece not starting at 0, is no packing:
    the mismatch stays an error (the last one packs: one token restarts)."""
    pair = hf_pair([1] * len(ids), ids)
    codes = {f.code for f in pair.findings}
    if ids[-1] == 0 and ids[0] == 0:
        assert "packed-positions" in codes and pair.documents == ((0, 4), (5, 5))
    else:
        assert "positions-mismatch" in codes and pair.documents is None


def test_with_a_cache_the_finding_says_the_library_never_reads_documents():
    ran = run_main("doctor", "--attention-mask", "1,1,1,1,1,1", "--position-ids", "0,1,0,1", "--past", "2",
                   "--lang", "en")
    assert ran.returncode == 0 and "never reads documents" in " ".join(ran.stdout.split())


def test_a_tiny_model_keeps_packed_documents_apart_only_without_mask_and_cache():
    """The finding's claim, end to end: a random Llama over two packed
    documents gives the second one the logits it has alone exactly when it
    gets no attention_mask and use_cache=False."""
    from transformers import LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(intermediate_size=8, attn_implementation="sdpa", **TINY)).eval()
    ids = torch.randint(0, 16, (1, 5))
    pos = torch.tensor([[0, 1, 2, 0, 1]])
    with torch.no_grad():
        alone = model(input_ids=ids[:, 3:], use_cache=False).logits
        apart = model(input_ids=ids, position_ids=pos, use_cache=False).logits[:, 3:]
        cached = model(input_ids=ids, position_ids=pos, use_cache=True).logits[:, 3:]
        masked = model(input_ids=ids, position_ids=pos, attention_mask=torch.ones(1, 5, dtype=torch.long),
                       use_cache=False).logits[:, 3:]
    assert torch.allclose(apart, alone, atol=1e-6)
    assert not torch.allclose(cached, alone, atol=1e-4) and not torch.allclose(masked, alone, atol=1e-4)
