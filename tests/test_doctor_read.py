"""Reading masks: printed torch tensors (written as torch prints them),
numpy's str / array2string / repr, JSON, 0/1 rows, .pt without torch, and
every bad input as one line naming the file, exit 2 (the real torch and
safetensors files: test_readers_hostile)."""

import sys
import zipfile

import numpy as np
import pytest

from maskattn_tui.cli import main
from maskattn_tui.doctor import diagnose, load_mask
from maskattn_tui.doctor.read import TEXT_LIMIT
from maskattn_tui.errors import MaskattnError

TORCH_BOOL = "tensor([[ True, False, False],\n        [ True,  True, False]])"
TORCH_F32_MIN = ("tensor([[ 0.0000e+00, -3.4028e+38, -3.4028e+38],\n"
                 "        [ 0.0000e+00,  0.0000e+00, -3.4028e+38],\n"
                 "        [ 0.0000e+00,  0.0000e+00,  0.0000e+00]])")
TORCH_BF16_MIN = ("tensor([[ 0.0000e+00, -3.3895e+38],\n"
                  "        [ 0.0000e+00,  0.0000e+00]], dtype=torch.bfloat16)")
TORCH_F16_MIN = ("tensor([[     0., -65504.],\n"
                 "        [     0.,      0.]], device='cuda:0', dtype=torch.float16)")
TORCH_INF = "tensor([[0., -inf, -inf],\n        [0., 0., -inf],\n        [0., 0., 0.]])"
TORCH_BOOL_4D = ("tensor([[[[ True, False],\n          [ True,  True]]],\n\n\n"
                 "        [[[False, False],\n          [False,  True]]]], dtype=torch.bool)")
TORCH_ELIDED = ("tensor([[1., 0., 0.,  ..., 0., 0., 0.],\n        [1., 1., 0.,  ..., 0., 0., 0.],\n"
                "        ...,\n        [1., 1., 1.,  ..., 1., 1., 1.]])")


def written(tmp_path, text, name="mask.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_printed_torch_bool_is_top_left_with_one_cached_key(tmp_path):
    mask, info = load_mask(written(tmp_path, TORCH_BOOL))
    assert info.format == "torch-text" and info.dtype == "bool"
    assert (mask == np.tril(np.ones((2, 3), dtype=bool))).all()
    d = diagnose(mask)
    assert (d.polarity, d.alignment.alignment) == ("attend", "top-left")


@pytest.mark.parametrize(("text", "dtype", "minimum"), [
    (TORCH_F32_MIN, "float32", "float32"), (TORCH_BF16_MIN, "bfloat16", "bfloat16"),
    (TORCH_F16_MIN, "float16", "float16")])
def test_printed_finite_minimum_names_its_dtype(tmp_path, text, dtype, minimum):
    mask, info = load_mask(written(tmp_path, text))
    assert info.dtype == dtype
    d = diagnose(mask)
    assert d.representation.kind == "additive-finite" and d.representation.minimum_dtype == minimum
    assert d.fit.name == "causal" and d.fit.comparison.count == 0


def test_printed_minus_inf(tmp_path):
    mask, _ = load_mask(written(tmp_path, TORCH_INF))
    assert diagnose(mask).representation.kind == "additive-inf"


def test_printed_4d_with_batch_and_head(tmp_path):
    path = written(tmp_path, TORCH_BOOL_4D)
    mask, info = load_mask(path, batch=1, head=0)
    assert info.shape == (2, 1, 2, 2) and info.distinct_slices == 2
    assert mask.tolist() == [[False, False], [False, True]]
    d = diagnose(mask)
    assert d.empty_rows == (0,) and d.pad_keys == (0, 1)


@pytest.mark.parametrize("render", [str, np.array2string, repr], ids=["str", "array2string", "repr"])
@pytest.mark.parametrize("kind", ["bool", "additive", "int"])
def test_numpy_printouts(tmp_path, render, kind):
    allowed = np.tril(np.ones((3, 5), dtype=bool), 2)
    array = {"bool": allowed, "additive": np.where(allowed, 0.0, -np.inf).astype(np.float32),
             "int": allowed.astype(np.int64)}[kind]
    mask, info = load_mask(written(tmp_path, render(array)))
    assert info.format == "numpy-text"
    d = diagnose(mask)
    assert (d.alignment.alignment, d.offset, d.fit.comparison.count) == ("bottom-right", 2, 0)
    assert d.representation.kind == {"bool": "bool", "additive": "additive-inf", "int": "int01"}[kind]


def test_json_and_rows(tmp_path):
    mask, info = load_mask(written(tmp_path, "[[1, 0, 0], [1, 1, 0], [1, 1, 1]]", "m.json"))
    assert info.format == "json" and mask.dtype == np.int64
    rows, info = load_mask(written(tmp_path, "1 0 0\n1 1 0\n\n1 1 1\n"))
    assert info.format == "rows-text" and (rows == mask).all()
    csv, _ = load_mask(written(tmp_path, "1,0,0\n1,1,0\n1,1,1\n", "m.csv"))
    assert (csv == mask).all()
    json_bool, _ = load_mask(written(tmp_path, "[[true, false], [true, true]]", "b.json"))
    assert json_bool.dtype == np.bool_


def test_nothing_is_evaluated(tmp_path):
    with pytest.raises(MaskattnError) as err:
        load_mask(written(tmp_path, "tensor([[__import__('os').system('echo hi')]])"))
    assert err.value.key == "doctor_text_token"


def error_line(capsys, *argv):
    code = main(["doctor", *map(str, argv)])
    err = capsys.readouterr().err
    return code, err


BAD_TEXT = {
    "elided": (TORCH_ELIDED, "elided"),
    "ragged-rows": ("1 0 0\n1 1\n", "line 2"),
    "ragged-json": ("[[1, 0], [1]]", "ragged"),
    "prose": ("this is not a mask\n", "not a table"),
    "mixed": ("[[True, 0], [1, 1]]", "mixes"),
    "brackets": ("[[1, 0], 1]", "brackets"),
    "nan": ("[[0.0, nan], [0.0, 0.0]]", "NaN"),
    "inf": ("[[0.0, inf], [0.0, 0.0]]", "+inf"),
    "one-d": ("[1, 0, 1]", "1-D"),
    "five-d": ("[[[[[1]]]]]", "5-D"),
    "scalar": ("tensor(True)", "not a table"),
}


@pytest.mark.parametrize("case", sorted(BAD_TEXT))
def test_bad_text_is_one_line_exit_2(tmp_path, capsys, case):
    text, words = BAD_TEXT[case]
    path = written(tmp_path, text)
    code, err = error_line(capsys, path)
    assert code == 2 and err.count("\n") == 1 and str(path) in err and words in err
    assert "Traceback" not in err


def test_bad_files(tmp_path, capsys):
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    np.save(tmp_path / "one.npy", np.ones(4, dtype=bool))
    np.save(tmp_path / "five.npy", np.ones((1, 1, 1, 2, 2), dtype=bool))
    np.save(tmp_path / "nan.npy", np.array([[0.0, np.nan], [0.0, 0.0]]))
    np.save(tmp_path / "heads.npy", np.ones((2, 3, 4, 4), dtype=bool))
    np.save(tmp_path / "empty.npy", np.ones((0, 4), dtype=bool))
    np.save(tmp_path / "text.npy", np.array([["a"]]))
    (tmp_path / "cut.npy").write_bytes((tmp_path / "heads.npy").read_bytes()[:140])  # data cut
    (tmp_path / "head.npy").write_bytes((tmp_path / "heads.npy").read_bytes()[:100])  # header cut
    (tmp_path / "blank.txt").write_text("")
    (tmp_path / "binary.bin").write_bytes(bytes(range(256)))
    (tmp_path / "dir").mkdir()
    cases = [
        (["obj.npy"], "object"), (["one.npy"], "1-D"), (["five.npy"], "5-D"), (["nan.npy"], "NaN"),
        (["heads.npy", "--batch", "2"], "--batch 2"), (["heads.npy", "--head", "3"], "--head 3"),
        (["empty.npy"], "no cells"), (["text.npy"], "not <U1"), (["cut.npy"], "holds 12 bytes of data"),
        (["head.npy"], "not a readable .npy"),
        (["blank.txt"], "empty"), (["binary.bin"], "UTF-8"), (["missing.npy"], "no such"),
    ]
    for argv, words in cases:
        code, err = error_line(capsys, tmp_path / argv[0], *argv[1:])
        assert code == 2 and err.count("\n") == 1, (argv, err)
        assert str(tmp_path / argv[0]) in err and words in err.replace("bool, integer or float, ", ""), (argv, err)
    with pytest.raises(MaskattnError, match="is a directory"):  # `doctor DIR` reads a capture folder
        load_mask(tmp_path / "dir")


def test_object_arrays_are_refused_before_unpickling(tmp_path, monkeypatch):
    np.save(tmp_path / "obj.npy", np.array([1, None], dtype=object), allow_pickle=True)

    def no_load(*args, **kwargs):
        raise AssertionError("np.load must not be reached")

    monkeypatch.setattr(np, "load", no_load)
    with pytest.raises(MaskattnError) as err:
        load_mask(tmp_path / "obj.npy")
    assert err.value.key == "doctor_object"


def test_a_huge_text_file_is_refused_unread(tmp_path, capsys):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as file:
        file.truncate(TEXT_LIMIT + 1)  # sparse: no disk, and never read
    code, err = error_line(capsys, path)
    assert code == 2 and "too large" in err


def test_npy_is_memory_mapped(tmp_path):
    np.save(tmp_path / "m.npy", np.tril(np.ones((64, 64), dtype=bool)))
    mask, info = load_mask(tmp_path / "m.npy")
    assert isinstance(mask, np.memmap) and info.format == "npy"


# --- .pt ----------------------------------------------------------------------------


def pt_file(tmp_path):
    path = tmp_path / "mask.pt"
    with zipfile.ZipFile(path, "w") as z:  # torch.save's container
        z.writestr("mask/data.pkl", b"not read without torch")
    return path


def test_pt_without_torch_says_how_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    code, err = error_line(capsys, pt_file(tmp_path))
    assert code == 2 and err.count("\n") == 1
    assert "pip install 'maskattn-tui[torch]'" in err
