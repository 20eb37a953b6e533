"""probe --replay DIR: a captured left-padded call re-run through every
attention path on CPU. The rows each path gets wrong are the ones the
formulas predict: transformers' eager formula (the dtype's minimum added)
averages every key uniformly on a row with no visible key, a plain softmax
over -inf gives NaN there; SDPA (math and CPU flash) and eager
FlexAttention give 0, as the reference does, and every path agrees on the
other rows."""

import json

import pytest

torch = pytest.importorskip("torch")

from maskattn_tui.cli import main  # noqa: E402


def left_padded_capture(folder):
    import torch.nn.functional as F

    from maskattn_tui import capture

    torch.manual_seed(0)
    q = k = v = torch.randn(2, 2, 6, 8)
    visible = torch.ones(2, 1, 6, 6, dtype=torch.bool).tril()
    visible[0, :, :, :2] = False  # batch row 0 left-padded by 2: its query rows 0 and 1 see nothing
    with capture(folder):
        F.scaled_dot_product_attention(q, k, v, attn_mask=visible)


def test_replay_names_the_eager_formulas_uniform_rows_and_the_softmax_nan_rows(tmp_path, capsys):
    left_padded_capture(tmp_path / "cap")
    assert main(["probe", "--replay", str(tmp_path / "cap"), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    (call,) = result["calls"]
    assert call["shape"] == [2, 2, 6, 6]
    empty = [(0, h, r) for h in (0, 1) for r in (0, 1)]
    paths = call["paths"]
    for name in ("sdpa-math", "sdpa-flash", "flex"):
        assert paths[name]["status"] == "agrees", name
    assert [(r["batch"], r["head"], r["row"]) for r in paths["hf-eager"]["rows"]] == empty
    assert {r["got"] for r in paths["hf-eager"]["rows"]} == {"uniform"}
    assert [(r["batch"], r["head"], r["row"]) for r in paths["softmax"]["rows"]] == empty
    assert {r["got"] for r in paths["softmax"]["rows"]} == {"nan"}
    assert result["wrong_rows"] == 8


def test_replay_text_in_both_languages(tmp_path, capsys):
    left_padded_capture(tmp_path / "cap")
    assert main(["probe", "--replay", str(tmp_path / "cap")]) == 1
    out = capsys.readouterr().out
    assert "uniform average over every key at b0 h0 r0" in out and "NaN at b0 h0 r0" in out
    assert main(["probe", "--replay", str(tmp_path / "cap"), "--lang", "zh"]) == 1
    assert "均匀平均" in capsys.readouterr().out


def test_replay_of_a_folder_that_is_not_a_capture_is_one_line(tmp_path, capsys):
    assert main(["probe", "--replay", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_row_that_is_another_tables_result_is_named_by_that_call():
    from maskattn_tui.probe.replay import _reference, _rows

    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 1, 4, 8) for _ in range(3))
    causal = torch.ones(1, 1, 4, 4, dtype=torch.bool).tril()
    window = causal & ~torch.ones(1, 1, 4, 4, dtype=torch.bool).tril(-2)  # 2 keys including itself
    ref, other = _reference(q, k, v, window, 8 ** -0.5), _reference(q, k, v, causal, 8 ** -0.5)
    uniform = v.double().mean(-2, keepdim=True).expand_as(ref)
    # a path that used call 7's causal table where this call's window was meant
    found = _rows(other, ref, uniform, {7: other})
    assert found["status"] == "differs"
    # rows 0 and 1 see the same keys under both tables; rows 2 and 3 see one more under causal
    assert [(r["row"], r["got"], r.get("of_call")) for r in found["rows"]] == [(2, "call", 7), (3, "call", 7)]
