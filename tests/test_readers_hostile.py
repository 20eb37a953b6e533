"""The mask readers on files a user (or an adversary) hands over: every one
is read right or refused in one line naming the file, exit 2, with no
library warning before it, no traceback and no hang. Files that torch or
safetensors write are written by the real libraries."""

import os
import stat
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import pytest

from maskattn_tui.cli import main
from maskattn_tui.doctor import load_mask
from maskattn_tui.errors import MaskattnError

CAUSAL = np.tril(np.ones((4, 4), dtype=bool))


def refused(capsys, *argv) -> str:
    """The one stderr line of `maskattn-tui doctor ARGV` (exit 2, nothing on
    stdout, no warning raised on the way)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code = main(["doctor", *map(str, argv)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
    assert not seen, [str(w.message) for w in seen]
    assert "Traceback" not in err
    return err


def cli(*argv, stdin=None, timeout=60) -> subprocess.CompletedProcess:
    """The console script in a child process (a hang is a timeout, and the
    child's real stderr shows any warning a library prints)."""
    return subprocess.run([sys.executable, "-m", "maskattn_tui", "doctor", *map(str, argv)], stdin=stdin,
                          capture_output=True, text=True, timeout=timeout, env={**os.environ, "LANG": "C.UTF-8"})


# --- what the path is ----------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_with_no_writer_is_refused_at_once(tmp_path):
    fifo = tmp_path / "mask.npy"
    os.mkfifo(fifo)
    done = cli(fifo, timeout=30)  # before the fix: blocked in open() for ever
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "FIFO" in done.stderr and str(fifo) in done.stderr


def test_a_pipe_on_stdin_is_named_a_pipe_not_an_empty_file():
    child = subprocess.run([sys.executable, "-m", "maskattn_tui", "doctor", "/dev/stdin"], input="1 0\n1 1\n",
                           capture_output=True, text=True, timeout=30)
    assert child.returncode == 2 and child.stderr.count("\n") == 1
    assert "pipe (FIFO)" in child.stderr and "empty" not in child.stderr


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_devices_are_named_devices(capsys):
    err = refused(capsys, "/dev/zero")
    assert "character device" in err and "empty" not in err
    assert stat.S_ISCHR(os.stat("/dev/zero").st_mode)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc")
def test_a_proc_file_is_read_as_the_text_it_holds(capsys):
    err = refused(capsys, "/proc/self/status")  # st_size is 0, but it holds text
    assert "empty" not in err and "Name:" in err


def test_a_symlink_loop_is_named_a_loop(tmp_path, capsys):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    err = refused(capsys, tmp_path / "a")
    assert "loop of symbolic links" in err and "no such file" not in err


def test_a_dangling_symlink_is_no_such_file(tmp_path, capsys):
    (tmp_path / "a").symlink_to(tmp_path / "gone.npy")
    assert "no such file" in refused(capsys, tmp_path / "a")


# --- .npy ------------------------------------------------------------------------


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_npy_versions_1_to_3_are_read(tmp_path, version):
    path = tmp_path / "m.npy"
    with open(path, "wb") as file:
        np.lib.format.write_array(file, CAUSAL, version=version)
    mask, info = load_mask(path)
    assert info.format == "npy" and (np.asarray(mask) == np.load(path, allow_pickle=False)).all()


def test_a_fortran_ordered_npy_is_read_in_its_order(tmp_path):
    array = np.asfortranarray(np.tril(np.ones((3, 5), dtype=np.int8), 2))
    np.save(tmp_path / "f.npy", array)
    mask, _ = load_mask(tmp_path / "f.npy")
    assert (np.asarray(mask) == np.load(tmp_path / "f.npy")).all()


def npy_with_shape(path, shape: str, dtype="|b1") -> None:
    header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape}, }}".encode()
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\x01" * 16)


def test_a_shape_whose_product_overflows_is_one_line(tmp_path, capsys):
    path = tmp_path / "big.npy"
    npy_with_shape(path, "(4294967296, 4294967296)")
    err = refused(capsys, path)
    assert "18,446,744,073,709,551,616 bytes" in err and "16 bytes" in err
    child = cli(path)  # numpy's RuntimeWarning would print on the real stderr
    assert child.returncode == 2 and child.stderr.count("\n") == 1, child.stderr


@pytest.mark.parametrize("dtype", ["<m8[s]", "<M8[D]", "<c16"])
def test_time_and_complex_arrays_are_refused(tmp_path, capsys, dtype):
    np.save(tmp_path / "t.npy", np.zeros((2, 2), dtype=dtype))
    assert f"not {np.dtype(dtype)}" in refused(capsys, tmp_path / "t.npy")


def test_a_bad_header_literal_is_refused(tmp_path, capsys):
    npy_with_shape(tmp_path / "h.npy", "__import__('os')")
    assert "not a Python literal" in refused(capsys, tmp_path / "h.npy")


# --- .npz ------------------------------------------------------------------------


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed], ids=["stored", "compressed"])
def test_npz_with_one_array(tmp_path, save):
    save(tmp_path / "one.npz", CAUSAL)
    mask, info = load_mask(tmp_path / "one.npz")
    assert (info.format, info.key) == ("npz", "arr_0") and (np.asarray(mask) == CAUSAL).all()
    if save is np.savez:
        assert isinstance(mask, np.memmap)  # a stored member is mapped in place


def test_npz_with_several_arrays_needs_a_key_and_lists_them(tmp_path, capsys):
    other = np.ones((3, 5), dtype=np.float32)
    np.savez_compressed(tmp_path / "two.npz", causal=CAUSAL, other=other)
    err = refused(capsys, tmp_path / "two.npz")
    assert "holds 2 arrays" in err and "--key" in err and "causal, other" in err
    mask, info = load_mask(tmp_path / "two.npz", key="other")
    assert info.key == "other" and (np.asarray(mask) == other).all()
    assert "no array named 'nope'" in refused(capsys, tmp_path / "two.npz", "--key", "nope")


def test_an_npz_of_objects_is_refused_unpickled(tmp_path, capsys):
    np.savez(tmp_path / "obj.npz", np.array([{"a": 1}, None], dtype=object))
    assert "pickled Python objects" in refused(capsys, tmp_path / "obj.npz")


def test_a_zip_that_is_neither_npz_nor_torch(tmp_path, capsys):
    with zipfile.ZipFile(tmp_path / "x.npz", "w") as archive:
        archive.writestr("readme.txt", "hello")
    err = refused(capsys, tmp_path / "x.npz")
    assert "neither .npy arrays" in err and "torch" in err.split(":", 2)[2]


def test_key_on_a_file_of_one_array_is_refused(tmp_path, capsys):
    np.save(tmp_path / "m.npy", CAUSAL)
    assert "--key picks an array" in refused(capsys, tmp_path / "m.npy", "--key", "x")


# --- .safetensors -------------------------------------------------------------------


def test_safetensors_with_the_numpy_loader(tmp_path, capsys):
    pytest.importorskip("safetensors")
    from safetensors.numpy import save_file

    float_mask = np.where(CAUSAL, 0.0, -np.inf).astype(np.float32)
    save_file({"mask": CAUSAL}, tmp_path / "one.safetensors")
    save_file({"a": CAUSAL, "b": float_mask}, tmp_path / "two.safetensors")
    mask, info = load_mask(tmp_path / "one.safetensors")
    assert (info.format, info.key, info.dtype) == ("safetensors", "mask", "bool") and (mask == CAUSAL).all()
    assert "holds 2 arrays" in refused(capsys, tmp_path / "two.safetensors")
    mask, info = load_mask(tmp_path / "two.safetensors", key="b")
    assert (mask == float_mask).all()


def test_safetensors_bfloat16_is_widened_exactly(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from safetensors.torch import save_file

    tensor = torch.where(torch.tril(torch.ones(3, 4, dtype=torch.bool)), 0.0,
                         torch.finfo(torch.bfloat16).min).to(torch.bfloat16)
    tensor[0, 1] = 1.5
    save_file({"mask": tensor}, str(tmp_path / "bf.safetensors"))
    mask, info = load_mask(tmp_path / "bf.safetensors")
    assert info.dtype == "bfloat16" and mask.dtype == np.float32
    assert (mask == tensor.float().numpy()).all()


def test_safetensors_missing_says_what_to_install(tmp_path, capsys, monkeypatch):
    (tmp_path / "m.safetensors").write_bytes(b"\x02\x00\x00\x00\x00\x00\x00\x00{}")
    monkeypatch.setitem(sys.modules, "safetensors", None)
    assert "pip install safetensors" in refused(capsys, tmp_path / "m.safetensors")


def test_a_damaged_safetensors_is_one_line(tmp_path, capsys):
    pytest.importorskip("safetensors")
    (tmp_path / "bad.safetensors").write_bytes(b"\xff" * 8 + b"{ nonsense")
    assert "not a readable .safetensors file" in refused(capsys, tmp_path / "bad.safetensors")


# --- .pt (real torch) ------------------------------------------------------------------


def test_a_plain_pickle_named_pt_is_one_line_and_no_warning(tmp_path, capsys):
    pytest.importorskip("torch")
    import pickle

    (tmp_path / "plain.pt").write_bytes(pickle.dumps({"mask": [1, 0]}, protocol=4))
    err = refused(capsys, tmp_path / "plain.pt")
    assert "weights_only=True" in err
    child = cli(tmp_path / "plain.pt")  # torch's UserWarning would be on the real stderr
    assert child.returncode == 2 and child.stderr.count("\n") == 1, child.stderr


def test_a_torch_save_payload_of_objects_is_refused_whole(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    torch.save({"mask": np.ones((2, 2))}, tmp_path / "obj.pt")  # a numpy array: not weights-only
    err = refused(capsys, tmp_path / "obj.pt").rstrip("\n")
    assert err.endswith("torch.save(mask, path)") and "never unpickled" in err


def test_a_sparse_tensor_is_read_as_its_dense_table(tmp_path):
    torch = pytest.importorskip("torch")
    dense = torch.tril(torch.ones(5, 5, dtype=torch.bool))
    for layout, sparse in (("coo", dense.to_sparse()), ("csr", dense.to_sparse_csr())):
        torch.save(sparse, tmp_path / f"{layout}.pt")
        mask, info = load_mask(tmp_path / f"{layout}.pt")
        assert info.dtype == "bool" and (mask == dense.numpy()).all(), layout


def test_a_dict_of_tensors_with_key(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    torch.save({"causal": torch.tril(torch.ones(3, 3)), "bias": torch.zeros(3, 3)}, tmp_path / "d.pt")
    assert "causal, bias" in refused(capsys, tmp_path / "d.pt")
    mask, info = load_mask(tmp_path / "d.pt", key="causal")
    assert info.key == "causal" and (mask == np.tril(np.ones((3, 3)))).all()


def test_pt_bfloat16_is_float32_and_keeps_its_name(tmp_path):
    torch = pytest.importorskip("torch")
    tensor = torch.where(torch.tril(torch.ones(2, 2, dtype=torch.bool)), 0.0,
                         torch.finfo(torch.bfloat16).min).to(torch.bfloat16)
    torch.save(tensor, tmp_path / "bf.pt")
    mask, info = load_mask(tmp_path / "bf.pt")
    assert (info.format, info.dtype, mask.dtype) == ("pt", "bfloat16", np.float32)
    assert (mask == tensor.float().numpy()).all()


def test_a_torch_zip_named_npz_is_read_by_torch(tmp_path):
    torch = pytest.importorskip("torch")
    torch.save(torch.tril(torch.ones(3, 3, dtype=torch.bool)), tmp_path / "mask.npz")
    mask, info = load_mask(tmp_path / "mask.npz")
    assert info.format == "pt" and (mask == np.tril(np.ones((3, 3), dtype=bool))).all()


def test_a_quantized_tensor_is_refused_in_one_line(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    q = torch.quantize_per_tensor(torch.ones(2, 2), 0.1, 0, torch.qint8)
    torch.save(q, tmp_path / "q.pt")
    try:
        torch.load(tmp_path / "q.pt", weights_only=True)
    except Exception:
        pytest.skip("this torch does not load quantized tensors with weights_only")
    assert "qint8" in refused(capsys, tmp_path / "q.pt")


def test_reading_refuses_with_maskattn_error_only(tmp_path):
    (tmp_path / "x.pt").write_bytes(b"\x80\x04garbage")
    with pytest.raises(MaskattnError):
        load_mask(tmp_path / "x.pt")


def test_pt_loads_with_weights_only_on_cpu(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    torch.save(torch.tril(torch.ones(3, 3, dtype=torch.bool)), tmp_path / "m.pt")
    calls, real_load = [], torch.load

    def spy(file, **kwargs):
        calls.append(kwargs)
        return real_load(file, **kwargs)

    monkeypatch.setattr(torch, "load", spy)
    mask, info = load_mask(tmp_path / "m.pt")
    assert calls == [{"weights_only": True, "map_location": "cpu"}]
    assert (info.format, info.dtype) == ("pt", "bool") and (mask == np.tril(np.ones((3, 3), dtype=bool))).all()


# --- text ------------------------------------------------------------------------------


def text_file(tmp_path, text, name="mask.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


@pytest.mark.parametrize("depth", [5, 65, 100_000])
def test_deep_brackets_are_refused_at_once_as_dimensions(tmp_path, capsys, depth):
    import time

    path = text_file(tmp_path, "[" * depth + "1" + "]" * depth)
    began = time.perf_counter()
    err = refused(capsys, path)  # before: ValueError (over 64) or minutes of regex passes
    assert f"a {depth}-D array" in err and time.perf_counter() - began < 10


def test_a_comma_nested_deep_is_not_a_recursion_error(tmp_path, capsys):
    path = text_file(tmp_path, "[" * 990 + "1," + "]" * 990)  # json.loads recursed
    assert "a 990-D array" in refused(capsys, path)


@pytest.mark.parametrize("number", ["99999999999999999999", "-9223372036854775809", "7" * 5000], ids=["20-digits", "below-min", "5000-digits"])
def test_an_integer_beyond_int64_is_refused_by_name(tmp_path, capsys, number):
    for text in (f"[[1, {number}], [1, 1]]", f"1 {number}\n1 1\n"):
        err = refused(capsys, text_file(tmp_path, text))
        assert "beyond int64" in err and number[:10] in err and len(err) < 300


def test_int64_edges_are_read():
    from maskattn_tui.doctor.text_table import parse_table

    array, _, _ = parse_table("[[9223372036854775807, -9223372036854775808]]", "m")
    assert array.dtype == np.int64 and array.tolist() == [[2**63 - 1, -2**63]]


def test_a_utf8_bom_is_skipped(tmp_path):
    for text in ("\ufeff1 0\n1 1\n", "\ufeff[[true, false], [true, true]]", "\ufefftensor([[True, False]])"):
        mask, _ = load_mask(text_file(tmp_path, text))
        assert mask.astype(bool).tolist()[0] == [True, False]


def test_compact_rows_are_one_key_per_digit(tmp_path):
    mask, info = load_mask(text_file(tmp_path, "1000\n1100\n1110\n1111\n"))
    assert info.format == "rows-compact" and mask.shape == (4, 4) and (mask == np.tril(np.ones((4, 4)))).all()
    column, info = load_mask(text_file(tmp_path, "1\n1\n0\n"))  # one digit a line: a column
    assert info.format == "rows-text" and column.shape == (3, 1)


def test_compact_rows_of_different_lengths_are_ragged(tmp_path, capsys):
    err = refused(capsys, text_file(tmp_path, "1000\n110\n"))
    assert "not a table" in err or "mixes" in err or "ragged" in err or "line 2" in err


@pytest.mark.parametrize("form", ["rows", "json", "torch", "npy"])
def test_more_queries_than_keys_is_read_as_it_is(tmp_path, form):
    table = np.ones((7, 3), dtype=bool)
    if form == "npy":
        np.save(tmp_path / "m.npy", table)
        path = tmp_path / "m.npy"
    else:
        text = {"rows": "\n".join(["1 1 1"] * 7), "json": str(table.astype(int).tolist()),
                "torch": "tensor([" + ",\n        ".join(["[True, True, True]"] * 7) + "])"}[form]
        path = text_file(tmp_path, text)
    mask, info = load_mask(path)
    assert mask.shape == (7, 3) and info.shape == (7, 3) and np.asarray(mask).astype(bool).all()


def test_the_first_bad_token_in_the_file_is_named(tmp_path, capsys):
    err = refused(capsys, text_file(tmp_path, "1 0 zz\n1 1 aa\n"))
    assert "'zz'" in err


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_a_large_printout_is_parsed_in_bounded_memory(kind):
    """Peak memory a few times the text, not tens of times (a Python string
    per value was ~20-30x, about 1 GB for a 57 MB mask)."""
    import tracemalloc

    from maskattn_tui.doctor.text_table import parse_table

    table = np.tril(np.ones((900, 900), dtype=bool))
    if kind == "numpy":
        with np.printoptions(threshold=sys.maxsize):
            text = str(table).encode()
    else:
        torch = pytest.importorskip("torch")
        torch.set_printoptions(profile="full")
        try:
            text = str(torch.from_numpy(table)).encode()
        finally:
            torch.set_printoptions(profile="default")
    tracemalloc.start()
    try:
        array, _, _ = parse_table(text, "m")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (array == table).all() and peak < 10 * len(text), peak / len(text)


def test_scores_text_of_many_distinct_floats(tmp_path):
    rng = np.random.default_rng(3)
    scores = rng.standard_normal((40, 50))
    path = text_file(tmp_path, "\n".join(" ".join(repr(float(v)) for v in row) for row in scores))
    read, _ = load_mask(path)
    assert read.dtype == np.float64 and (read == scores).all()


# --- doctor's command line: values and errors -------------------------------------------


def test_doctor_json_errors_are_a_json_object_on_stdout(tmp_path, capsys):
    import json

    cases = [([str(tmp_path / "gone.npy"), "--json"], "doctor_missing"),
             (["--json", "--batch", "x", str(tmp_path / "gone.npy")], "usage"),
             (["--json", "--attention-mask", "1,2"], "doctor_hf_values")]
    for argv, code in cases:
        assert main(["doctor", *argv]) == 2
        out, err = capsys.readouterr()
        document = json.loads(out)
        assert document["schema"] == "maskattn-doctor-error/1" and document["error"]["code"] == code
        assert document["error"]["exit"] == 2 and document["error"]["message"] in err
        assert err.count("\n") == 1
    assert main(["doctor", str(tmp_path / "gone.npy")]) == 2  # without --json: stdout stays empty
    assert capsys.readouterr().out == ""


def test_doctor_json_error_in_chinese_keeps_its_code(tmp_path, capsys):
    import json

    assert main(["doctor", str(tmp_path / "gone.npy"), "--json", "--lang", "zh"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "doctor_missing" and "文件不存在" in error["message"]


@pytest.mark.parametrize("option", ["--batch", "--head"])
def test_slice_options_at_0_are_refused_with_an_hf_pair(capsys, option):
    err = refused(capsys, "--attention-mask", "1,1,1", option, "0")
    assert f"{option} does not apply to --attention-mask" in err


@pytest.mark.parametrize("option", ["--attention-mask", "--position-ids"])
@pytest.mark.parametrize("number", ["9223372036854775808", "9" * 5000], ids=["max+1", "5000-digits"])
def test_hf_values_beyond_int64_are_one_line(capsys, option, number):
    argv = ["--attention-mask", "1,1"] if option == "--position-ids" else []
    err = refused(capsys, *argv, option, f"0,{number}")
    assert "at most 9223372036854775807" in err


def test_a_large_hf_pair_is_refused_before_its_table_is_built(monkeypatch):
    from maskattn_tui.doctor import hf_pair as module

    monkeypatch.setattr(module, "CELLS_MOST", 100 * 100)
    with pytest.raises(MaskattnError) as err:
        module.hf_pair([1] * 101)
    assert err.value.key == "doctor_hf_too_large" and "--past 2" in err.value.message("en")
    assert module.hf_pair([1] * 101, past=2).table.shape == (99, 101)


def test_the_hf_table_built_in_bands_is_hf_rule(monkeypatch):
    from maskattn_tui.doctor import hf_pair as module

    monkeypatch.setattr(module, "BAND_CELLS", 64)  # many bands
    rng = np.random.default_rng(5)
    for _ in range(20):
        keys = int(rng.integers(1, 40))
        am = rng.integers(0, 2, keys)
        past = int(rng.integers(0, keys))
        q = np.arange(keys - past)[:, None] + past
        expected = (np.arange(keys)[None, :] <= q) & (am[None, :] == 1)  # masking_utils: kv <= q and padding
        assert (module.hf_pair(am.tolist(), past=past).table == expected).all()


# --- --scores -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf], ids=["nan", "+inf", "-inf"])
def test_scores_not_finite_at_a_visible_cell_are_refused_before_the_app(tmp_path, capsys, value):
    np.save(tmp_path / "m.npy", CAUSAL)
    scores = np.zeros((4, 4))
    scores[2, 1] = value  # q2 reads k1
    np.save(tmp_path / "s.npy", scores)
    from maskattn_tui.doctor.mask_open import open_mask

    with pytest.raises(MaskattnError, match="row 2, key 1"):  # before: accepted, then NaN weights at the first draw
        open_mask(str(tmp_path / "m.npy"), scores=str(tmp_path / "s.npy"))
    assert main(["--mask", str(tmp_path / "m.npy"), "--scores", str(tmp_path / "s.npy")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "row 2, key 1" in err and str(value) in err


def test_scores_not_finite_at_hidden_cells_are_kept(tmp_path):
    from maskattn_tui.doctor.mask_open import open_mask

    np.save(tmp_path / "m.npy", CAUSAL)
    scores = np.where(CAUSAL, np.arange(16.0).reshape(4, 4), -np.inf)  # a mask added to the scores
    scores[0, 3] = np.nan
    np.save(tmp_path / "s.npy", scores)
    doc = open_mask(str(tmp_path / "m.npy"), scores=str(tmp_path / "s.npy"))
    for row in range(4):
        weights = doc.weights(row).weights
        expected = np.exp(scores[row, : row + 1] - scores[row, row])
        assert np.allclose(weights[: row + 1], expected / expected.sum()) and (weights[row + 1:] == 0).all()


# --- scenario files -------------------------------------------------------------------------


def test_saving_to_a_name_over_255_bytes_is_one_message_and_writes_nothing(tmp_path):
    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.explore.scenario_file import save_scenario

    for name in ("x" * 300 + ".toml", "中" * 100 + ".toml"):  # 304 and 305 bytes
        with pytest.raises(MaskattnError) as err:
            save_scenario(ExploreConfig(), tmp_path / name)
        assert err.value.key == "explore_file_write" and "too long" in err.value.message("en")
        with pytest.raises(MaskattnError):
            save_scenario(ExploreConfig(), tmp_path / name, overwrite=True)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_opening_a_fifo_as_a_scenario_never_blocks(tmp_path):
    fifo = tmp_path / "scenario.toml"
    os.mkfifo(fifo)
    code = ("import sys\nfrom maskattn_tui.explore.scenario_file import load_scenario\n"
            "from maskattn_tui.errors import MaskattnError\n"
            "try:\n    load_scenario(sys.argv[1])\nexcept MaskattnError as e:\n    print(e.key)\n")
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "explore_file_not_regular"


def test_a_scenario_name_too_long_to_open_is_one_message(tmp_path):
    from maskattn_tui.explore.scenario_file import load_scenario

    with pytest.raises(MaskattnError) as err:
        load_scenario(tmp_path / ("y" * 300 + ".toml"))
    assert err.value.key == "explore_file_unreadable"


# --- the app's `o` ----------------------------------------------------------------------------


async def test_o_reads_a_mask_off_the_ui_thread_with_a_notice(tmp_path, monkeypatch):
    import threading

    from helpers import _path_dialog, recorded

    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui import mask_screen
    from maskattn_tui.tui.mask_screen import MaskScreen

    np.save(tmp_path / "m.npy", CAUSAL)
    release, threads = threading.Event(), []
    real_open = mask_screen.open_mask

    def slow_open(path, *args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        release.wait(10)  # a large text mask, being parsed
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(mask_screen, "open_mask", slow_open)
    app = make_app(explore=ExploreConfig(past=1))
    async with app.run_test(size=(100, 30)) as pilot:
        seen = recorded(app)
        await _path_dialog(pilot, "o", str(tmp_path / "m.npy"))
        assert threads == [False]  # before: the UI thread, frozen for as long as the read takes
        assert "Reading the mask" in seen[-1] and not isinstance(app.screen, MaskScreen)
        await pilot.press("question_mark")  # the app still answers keys meanwhile
        await pilot.pause()
        help_screen = app.screen
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause(0.5)
        assert app.screen is help_screen  # the mask waits for the help to close, not pushed over it
        await pilot.press("escape")
        await pilot.pause(0.5)
        assert isinstance(app.screen, MaskScreen) and "Opened the mask" in seen[-1]
        assert app.open_path == str(tmp_path / "m.npy")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
async def test_o_on_a_fifo_is_a_notice_not_a_frozen_app(tmp_path):
    from helpers import open_file, recorded

    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui.screen import FigureScreen

    for name in ("mask.npy", "scenario.toml"):
        os.mkfifo(tmp_path / name)
        config = ExploreConfig(past=1)
        app = make_app(explore=config)
        async with app.run_test(size=(100, 30)) as pilot:
            seen = recorded(app)
            await open_file(pilot, str(tmp_path / name))
            assert isinstance(app.screen, FigureScreen) and app.explore.config == config
            assert "not a regular file" in seen[-1] or "FIFO" in seen[-1], seen


async def test_o_opens_npz_and_safetensors_in_mask_mode(tmp_path):
    pytest.importorskip("safetensors")
    from helpers import open_file
    from safetensors.numpy import save_file

    from maskattn_tui.explore.config import ExploreConfig
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui.mask_screen import MaskScreen

    np.savez(tmp_path / "m.npz", CAUSAL)
    save_file({"mask": CAUSAL}, tmp_path / "m.safetensors")
    for name in ("m.npz", "m.safetensors"):
        app = make_app(explore=ExploreConfig(past=1))
        async with app.run_test(size=(100, 30)) as pilot:
            await open_file(pilot, str(tmp_path / name))  # before: read as a scenario file
            assert isinstance(app.screen, MaskScreen), name


def test_mask_mode_takes_key_for_a_file_of_several_arrays(tmp_path, capsys):
    from maskattn_tui.doctor.mask_open import open_mask

    np.savez(tmp_path / "two.npz", causal=CAUSAL, full=np.ones((4, 4), dtype=bool))
    doc = open_mask(str(tmp_path / "two.npz"), key="full")
    assert doc.info.key == "full" and doc.tables.user(0, 4, 0, 4).all()
    assert main(["--mask", str(tmp_path / "two.npz"), "--key", "nope"]) == 2  # read before the app starts
    assert "no array named 'nope'; it holds: causal, full" in capsys.readouterr().err
    assert main(["--key", "full"]) == 2
    assert "--key" in capsys.readouterr().err


# --- the text parser against the libraries' own printouts -------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_printouts_of_random_tables_read_back_exactly(seed):
    """numpy's str / repr, json.dumps and torch's print of random bool,
    integer and float tables (with -inf and finfo.min) parse back to the
    same values and shape."""
    import json

    from maskattn_tui.doctor.text_table import parse_table

    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(2, 5))))
    kind = ("bool", "int", "float")[seed % 3]
    if kind == "bool":
        table = rng.random(shape) < 0.5
    elif kind == "int":
        table = rng.integers(-3, 4, size=shape)
    else:
        table = np.where(rng.random(shape) < 0.3, -np.inf, rng.standard_normal(shape).round(4))
        table[rng.random(shape) < 0.2] = np.finfo(np.float32).min
    texts = {"str": str(table), "repr": repr(table)}
    if kind != "float":
        texts["json"] = json.dumps(table.tolist())
    torch = pytest.importorskip("torch")
    texts["torch"] = str(torch.from_numpy(table.astype(np.float32) if kind == "float" else table))
    for name, text in texts.items():
        with np.printoptions(threshold=sys.maxsize):
            array, _, _ = parse_table(text, "m")
        assert array.shape == table.shape, (name, text)
        if kind == "float":  # printed to 8 (numpy) or 4 (torch) significant digits
            assert np.allclose(array, table, rtol=1e-3 if name == "torch" else 1e-7), (name, text)
            assert (np.isneginf(array) == np.isneginf(table)).all(), (name, text)
        else:
            assert (array == table).all(), (name, text)


def test_safetensors_is_known_by_its_bytes_whatever_its_name(tmp_path):
    pytest.importorskip("safetensors")
    from safetensors.numpy import save_file

    save_file({"mask": CAUSAL}, tmp_path / "mask.bin")
    mask, info = load_mask(tmp_path / "mask.bin")
    assert info.format == "safetensors" and (mask == CAUSAL).all()
