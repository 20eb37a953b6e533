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

from helpers import doctor_refused as refused

CAUSAL = np.tril(np.ones((4, 4), dtype=bool))


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


def test_safetensors_is_known_by_its_bytes_whatever_its_name(tmp_path):
    pytest.importorskip("safetensors")
    from safetensors.numpy import save_file

    save_file({"mask": CAUSAL}, tmp_path / "mask.bin")
    mask, info = load_mask(tmp_path / "mask.bin")
    assert info.format == "safetensors" and (mask == CAUSAL).all()


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed], ids=["stored", "compressed"])
def test_npz_fortran_members_keep_their_order(tmp_path, save):
    array = np.asfortranarray(np.tril(np.ones((3, 6), dtype=np.float32), 3))
    save(tmp_path / "f.npz", m=array)
    mask, _ = load_mask(tmp_path / "f.npz")
    assert (np.asarray(mask) == np.load(tmp_path / "f.npz")["m"]).all()


def test_a_compressed_member_too_large_for_memory_is_refused(tmp_path, capsys, monkeypatch):
    from maskattn_tui.doctor import read_npy

    np.savez_compressed(tmp_path / "big.npz", np.zeros((64, 64), dtype=np.float32))
    monkeypatch.setattr(read_npy, "NPZ_LIMIT", 1024)
    err = refused(capsys, tmp_path / "big.npz")
    assert "too large to read into memory" in err and "np.savez" in err


def test_any_npy_header_is_read_or_refused_with_a_maskattn_error(tmp_path):
    """Headers of random literals, shapes and dtypes (and random bytes after
    the magic): an array or a MaskattnError, never another exception."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    descrs = st.sampled_from(["'|b1'", "'<f4'", "'<i8'", "'|O'", "'<m8[s]'", "'<c8'", "[('a', '<i4')]", "'x'", "5",
                              "'<U3'", "'>f8'", "'<f2'", "'V8'"])
    shapes = st.one_of(st.lists(st.integers(-2, 2**40), max_size=6).map(lambda s: repr(tuple(s))),
                       st.sampled_from(["[2, 2]", "(2.0, 2)", "'2x2'", "(True, 2)", "()", "(" * 50]))

    @settings(max_examples=150, deadline=None)
    @given(descrs, shapes, st.booleans(), st.binary(max_size=64), st.sampled_from([1, 2, 3, 4]))
    def check(descr, shape, fortran, data, version):
        header = f"{{'descr': {descr}, 'fortran_order': {fortran}, 'shape': {shape}, }}".encode()
        size = (len(header)).to_bytes(2 if version == 1 else 4, "little")
        path = tmp_path / "h.npy"
        path.write_bytes(b"\x93NUMPY" + bytes([version, 0]) + size + header + data)
        try:
            load_mask(path)
        except MaskattnError:
            pass

    check()


def test_any_safetensors_or_zip_bytes_are_read_or_refused_with_a_maskattn_error(tmp_path):
    pytest.importorskip("safetensors")
    import io
    import json

    from hypothesis import given, settings
    from hypothesis import strategies as st

    entries = st.fixed_dictionaries({"dtype": st.sampled_from(["BOOL", "F32", "BF16", "I64", "F8_E4M3", "X"]),
                                     "shape": st.lists(st.integers(0, 5), max_size=5),
                                     "data_offsets": st.lists(st.integers(0, 80), min_size=2, max_size=2)})

    @settings(max_examples=300, deadline=None)
    @given(st.dictionaries(st.sampled_from(["mask", "a", "__metadata__"]), entries, max_size=3),
           st.binary(max_size=80), st.booleans())
    def check(header, data, as_zip):
        path = tmp_path / ("m.npz" if as_zip else "m.safetensors")
        if as_zip:
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w") as archive:
                archive.writestr("arr_0.npy", data)
            path.write_bytes(buffer.getvalue())
        else:
            text = json.dumps(header).encode()
            path.write_bytes(len(text).to_bytes(8, "little") + text + data)
        try:
            load_mask(path)
        except MaskattnError:
            pass

    check()


def test_a_float8_safetensors_is_refused_by_its_dtype(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from safetensors.torch import save_file

    save_file({"mask": torch.zeros(2, 2).to(torch.float8_e4m3fn)}, str(tmp_path / "f8.safetensors"))
    assert "not F8_E4M3" in refused(capsys, tmp_path / "f8.safetensors")  # was numpy's AttributeError
