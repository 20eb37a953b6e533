"""The readers on hostile values and in the app: text masks (depth, huge
integers, a BOM, compact rows, memory), the doctor's command-line values
and its JSON errors, --scores, scenario files, and the app's `o` (off the
UI thread, never blocked by a FIFO). Each refusal is one line, exit 2."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from maskattn_tui.cli import main
from maskattn_tui.doctor import load_mask
from maskattn_tui.errors import MaskattnError

from helpers import doctor_refused as refused

CAUSAL = np.tril(np.ones((4, 4), dtype=bool))


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

    # 600 x 600: 2.2-2.8 MB of text, peaks 7-8x it (900 x 900 gives 6x,
    # and torch's printer alone takes 5 s to write it)
    table = np.tril(np.ones((600, 600), dtype=bool))
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
    from maskattn_tui.maskmode.saved_doc import open_mask

    with pytest.raises(MaskattnError, match="row 2, key 1"):  # before: accepted, then NaN weights at the first draw
        open_mask(str(tmp_path / "m.npy"), scores=str(tmp_path / "s.npy"))
    assert main(["--mask", str(tmp_path / "m.npy"), "--scores", str(tmp_path / "s.npy")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "row 2, key 1" in err and str(value) in err


def test_scores_not_finite_at_hidden_cells_are_kept(tmp_path):
    from maskattn_tui.maskmode.saved_doc import open_mask

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


def test_any_text_is_read_or_refused_with_a_maskattn_error():
    """Bracket soup, separators, numbers, words and bytes in any order: the
    parser answers with an array or a MaskattnError, never anything else."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from maskattn_tui.doctor.text_table import parse_table

    pieces = st.sampled_from(["[", "]", ",", " ", "\n", "\t", "1", "0", "-inf", "nan", "True", "false", "1e999",
                              "99999999999999999999", "1.5", "...", "tensor(", "array(", ")", "dtype=torch.bool",
                              "\ufeff", "x", "é", "+", "-", ".", "e"])

    @settings(max_examples=400, deadline=None)
    @given(st.lists(pieces, max_size=40))
    def check(parts):
        try:
            array, fmt, _ = parse_table("".join(parts), "m")
        except MaskattnError:
            return
        assert isinstance(array, np.ndarray) and fmt

    check()
