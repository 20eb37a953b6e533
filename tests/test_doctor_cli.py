"""`maskattn-tui doctor` as a user runs it: exit codes, the JSON contract,
both languages, the HF pair, --expect, misuse; its strings; and numpy
staying out of every other command line."""

import json
import re
import string
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from maskattn_tui.cli import main
from maskattn_tui.i18n import catalog

from helpers import LOCALE_VARS, run_main

#: Every field of the JSON document (README / issue 11: a documented contract).
FIELDS = {"schema", "file", "key", "format", "stored_shape", "dtype", "batch", "head", "distinct_slices", "shape",
          "representation", "minimum", "minimum_dtype", "polarity", "alignment", "offset", "alignment_score",
          "hypotheses", "api", "rule", "leaks", "leak_count", "empty_rows", "empty_row_count", "pad_keys",
          "pad_key_count", "pad_side", "pad_query_rows", "pad_query_row_count", "window", "chunk", "prefix",
          "documents", "tree", "findings", "family", "polarity_assumed", "alternatives", "unused_slots",
          "unused_slot_count", "pad_runs", "bidirectional_blocks", "window_left", "window_right", "slices",
          "window_kind", "window_half_width"}


def window_mask(past=3, new=4, w=4):
    p = np.arange(new)[:, None] + past
    k = np.arange(past + new)[None, :]
    return (k > p - w) & (k <= p)


def test_expect_in_a_test_suite(tmp_path):
    """What a user writes: the saved mask must be exactly the HF window table."""
    good, bad = tmp_path / "mask.npy", tmp_path / "leaky.npy"
    np.save(good, window_mask())
    leaky = window_mask()
    leaky[1, 5] = True  # query at position 4 reads the key at position 5
    np.save(bad, leaky)
    args = ["doctor", "--expect", "--past", "3", "--window", "4"]
    ok = run_main(args[0], str(good), *args[1:])
    assert ok.returncode == 0, ok.stderr
    fail = run_main(args[0], str(bad), *args[1:])
    assert fail.returncode == 1
    assert "(1,5)" in fail.stdout


def strict(text: str) -> dict:
    def refuse(token):
        raise ValueError(f"not strict JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def run_json(capsys, *argv) -> dict:
    assert main(["doctor", *map(str, argv), "--json"]) == 0
    return strict(capsys.readouterr().out)


def test_json_contract(tmp_path, capsys):
    mask = np.zeros((4, 7), dtype=np.float32)
    mask[~window_mask()] = -np.inf
    mask[0, 6] = 0.0  # a leak
    np.save(tmp_path / "m.npy", mask)
    doc = run_json(capsys, tmp_path / "m.npy")
    assert set(doc) == FIELDS
    assert doc["schema"] == "maskattn-doctor/1" and doc["shape"] == [4, 7]
    assert (doc["representation"], doc["minimum"], doc["polarity"], doc["alignment"], doc["offset"]) == \
        ("additive-inf", None, "attend", "bottom-right", 3)
    assert doc["window"] == 4 and doc["leaks"] == [[0, 6]] and doc["leak_count"] == 1
    assert doc["rule"]["name"] == "window" and doc["rule"]["window"] == 4
    leak = next(f for f in doc["findings"] if f["code"] == "leak")
    assert leak["cells"] == [[0, 6]] and leak["level"] == "error" and "-inf" in leak["message"]
    for finding in doc["findings"]:
        assert set(finding) == {"code", "level", "message", "cells", "count", "fix"}


def test_json_finite_minimum_and_both_languages(tmp_path, capsys):
    mask = np.where(np.tril(np.ones((3, 3), bool)), 0.0, np.finfo(np.float32).min).astype(np.float32)
    np.save(tmp_path / "m.npy", mask)
    en = run_json(capsys, tmp_path / "m.npy", "--lang", "en")
    zh = run_json(capsys, tmp_path / "m.npy", "--lang", "zh")
    assert en["representation"] == "additive-finite" and en["minimum_dtype"] == "float32"
    assert en["minimum"] == float(np.finfo(np.float32).min)
    assert [f["code"] for f in en["findings"]] == [f["code"] for f in zh["findings"]] == ["finite-min"]
    assert re.search(r"[\u4e00-\u9fff]", zh["findings"][0]["message"])
    assert not re.search(r"[\u4e00-\u9fff]", en["findings"][0]["message"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_human_report(tmp_path, capsys, lang):
    np.save(tmp_path / "m.npy", np.tril(np.ones((2, 5), dtype=bool)))  # is_causal with a cache
    assert main(["doctor", str(tmp_path / "m.npy"), "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert "causal_lower_right(2, 5)" in out and "tril(3)" in out
    assert ("top-left" in out) == (lang == "en") and ("左上角" in out) == (lang == "zh")
    assert "q0   #...." in out  # the table, row by row


def test_big_masks_get_a_block_overview(tmp_path, capsys):
    np.save(tmp_path / "m.npy", np.tril(np.ones((200, 200), dtype=bool)))
    assert main(["doctor", str(tmp_path / "m.npy")]) == 0
    out = capsys.readouterr().out
    assert "blocks of 5x5" in out and "q0" not in out


def test_hf_pair_with_arange_positions(capsys):
    doc = run_json(capsys, "--attention-mask", "0,0,1,1,1", "--position-ids", "0,1,2,3,4")
    assert doc["format"] == "hf-pair" and doc["expected_position_ids"] == [-1, -1, 0, 1, 2]
    assert (doc["pad_keys"], doc["pad_side"], doc["empty_rows"], doc["pad_query_rows"]) == \
        ([0, 1], "left", [0, 1], [0, 1])
    shifted = next(f for f in doc["findings"] if f["code"] == "positions-shifted")
    assert shifted["cells"] == [[2, 2, 0], [3, 3, 1], [4, 4, 2]]


@pytest.mark.parametrize("pads", ["0,0", "1,1"], ids=["pads-0", "pads-1"])
def test_hf_pair_accepts_either_pad_filling(capsys, pads):
    doc = run_json(capsys, "--attention-mask", "0,0,1,1,1", "--position-ids", f"{pads},0,1,2")
    codes = {f["code"] for f in doc["findings"]}
    assert not codes & {"positions-shifted", "positions-mismatch"}


def test_hf_pair_decoding_with_a_cache(capsys):
    doc = run_json(capsys, "--attention-mask", "0,1,1,1,1,0", "--past", "4", "--position-ids", "3,4")
    assert doc["shape"] == [2, 6] and doc["offset"] == 4 and doc["alignment"] == "bottom-right"
    codes = [f["code"] for f in doc["findings"]]
    assert "right-padding" in codes and "positions-mismatch" not in codes  # the PAD's 4 is not checked
    # key 0 (left PAD) and key 5 (the PAD new token): both runs are PAD keys
    assert doc["expected_position_ids"] == [3, -1] and doc["pad_keys"] == [0, 5] and doc["pad_runs"] == [[0, 1], [5, 6]]
    doc = run_json(capsys, "--attention-mask", "0,1,1,1,1,1", "--past", "4", "--position-ids", "4,5")
    shifted = next(f for f in doc["findings"] if f["code"] == "positions-shifted")
    assert shifted["cells"] == [[4, 4, 3], [5, 5, 4]]


def test_expect_json_and_exit_codes(tmp_path, capsys):
    mask = window_mask()
    mask[2, 3] = False  # position 5 does not see key 3, inside its window
    np.save(tmp_path / "m.npy", mask)
    assert main(["doctor", str(tmp_path / "m.npy"), "--expect", "--window", "4", "--json"]) == 1
    doc = strict(capsys.readouterr().out)
    assert doc["match"] is False and doc["differs"] == [[2, 3]] and doc["hidden_but_shown"] == [[2, 3]]
    assert doc["expected"]["past"] == 3 and doc["expected"]["new"] == 4
    assert main(["doctor", str(tmp_path / "m.npy"), "--expect", "--window", "4", "--polarity", "blocked"]) == 1
    capsys.readouterr()
    np.save(tmp_path / "ok.npy", window_mask())
    assert main(["doctor", str(tmp_path / "ok.npy"), "--expect", "--new", "4", "--past", "3", "--window", "4"]) == 0


def test_expect_documents_and_tree(tmp_path, capsys):
    doc = np.repeat([0, 1, 2], [3, 2, 3])
    p, k = np.arange(8)[:, None], np.arange(8)[None, :]
    np.save(tmp_path / "docs.npy", (k <= p) & (doc[k] == doc[p]))
    assert main(["doctor", str(tmp_path / "docs.npy"), "--expect", "--documents", "3,2,3"]) == 0
    assert main(["doctor", str(tmp_path / "docs.npy"), "--expect"]) == 1
    tree = np.array([[c == "1" for c in r] for r in "11110000/11111000/11110100/11111010/11110101".split("/")])
    np.save(tmp_path / "tree.npy", tree)
    assert main(["doctor", str(tmp_path / "tree.npy"), "--expect", "--tree=-1,0,0,1,2"]) == 0
    assert main(["doctor", str(tmp_path / "tree.npy"), "--expect", "--tree", "-1,0,0,1,2"]) == 0
    assert main(["doctor", str(tmp_path / "tree.npy"), "--expect", "--tree", "-1,0,0,1,1"]) == 1


@pytest.mark.parametrize(("argv", "words"), [
    ([], "give a mask FILE"),
    (["m.npy", "--attention-mask", "1,1"], "not both"),
    (["m.npy", "--window", "3"], "--window goes with --expect"),
    (["m.npy", "--past", "3"], "--past goes with --expect"),
    (["m.npy", "--position-ids", "0,1"], "--position-ids goes with --attention-mask"),
    (["--attention-mask", "1,1", "--expect"], "does not apply"),
    (["--attention-mask", "1,2"], "only 0 and 1"),
    (["--attention-mask", "1,1", "--past", "2"], "less than"),
    (["--attention-mask", "1,1", "--position-ids", "0,1,2"], "--position-ids has 3"),
    (["m.npy", "--expect", "--past", "2"], "describe 4x6"),
    (["m.npy", "--expect", "--documents", "3,3"], "option --documents: documents: the lengths 3,3 sum to 6, but past + new = 7"),
    (["m.npy", "--expect", "--window", "3", "--chunk", "2"], "option --chunk: window and chunk do not combine"),
    (["m.npy", "--expect", "--window", "3", "--window-right", "1"], "option --window-right: window_right needs the causal rule off"),
    (["m.npy", "--expect", "--tree", "-1,0,3,0"], "option --tree: tree: the parent of draft node 2"),
    (["m.npy", "--expect", "--new", "9"], "describe 9x9"),
    (["--attention-mask", "1,1", "--past", "-1"], "option --past: past must be from 0"),
    (["m.npy", "--batch", "-1"], "at least 0"),
    (["m.npy", "--window", "x", "--expect"], "whole number"),
])
def test_misuse_is_one_line_exit_2(tmp_path, capsys, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "m.npy", window_mask())
    assert main(["doctor", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_help_in_both_languages():
    for lang, words in (("en", "--attention-mask"), ("zh", "推测解码树")):
        done = run_main("doctor", "--help", env={"LANG": "zh_CN.UTF-8" if lang == "zh" else "en_US.UTF-8"},
                        drop=LOCALE_VARS)
        assert done.returncode == 0 and words in done.stdout
    top = run_main("--help")
    assert "doctor" in top.stdout


# --- numpy only inside the doctor -----------------------------------------------------


def modules_after(argv: list[str]) -> set[str]:
    code = ("import sys, io, contextlib\nfrom maskattn_tui.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass\n"
            "print(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in done.stdout.split()}


@pytest.mark.parametrize("argv", [["--help"], ["print", "--step", "2"], ["json"], ["check"],
                                  ["print", "--past", "3", "--new", "2"], ["doctor", "--help"], ["doctor"]],
                         ids=["help", "print", "json", "check", "explore", "doctor-help", "doctor-misuse"])
def test_numpy_stays_out(argv):
    assert "numpy" not in modules_after(argv)


def test_the_doctor_does_load_numpy(tmp_path):
    np.save(tmp_path / "m.npy", window_mask())
    assert "numpy" in modules_after(["doctor", str(tmp_path / "m.npy")])


def test_nothing_but_the_doctor_imports_numpy():
    root = resources.files("maskattn_tui")
    for path in Path(str(root)).rglob("*.py"):
        # the packages that read masks: the doctor, masks beyond memory, capture,
        # the intended tables they are checked against (intent), mask mode's
        # documents (maskmode); and the engine's softmax of a numpy row, imported only when given one
        # (tests/test_softmax_np.py: a list does not import it)
        if {"doctor", "scale", "capture", "intent", "maskmode"} & set(path.parts) or path.name == "softmax_np.py":
            continue
        assert not re.search(r"^\s*(import numpy|from numpy)", path.read_text("utf-8"), re.M), path


# --- strings ------------------------------------------------------------------------


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_doctor_strings():
    raw = json.loads((resources.files("maskattn_tui") / "data" / "strings" / "doctor.json").read_text("utf-8"))
    assert len(raw) > 100
    for key, texts in raw.items():
        assert key.startswith(("doctor.", "error.doctor_", "cli.help.doctor")), key
        assert set(texts) == {"en", "zh"} and texts["en"].strip() and texts["zh"].strip(), key
        assert placeholders(texts["en"]) == placeholders(texts["zh"]), key
        assert re.search(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]", texts["zh"]) or texts["zh"] == texts["en"], key
    assert set(raw) <= set(catalog())


def test_every_string_key_the_doctor_uses_exists():
    keys = catalog()
    folder = Path(str(resources.files("maskattn_tui"))) / "doctor"
    used = set()
    for path in folder.glob("*.py"):
        text = path.read_text("utf-8")
        used |= set(re.findall(r't\(\s*"(doctor\.[\w.\-]+)"', text))
        used |= {"error." + k for k in re.findall(r'MaskattnError\(\s*"(doctor_\w+)"', text)}
    assert len(used) > 40
    assert used <= set(keys), used - set(keys)
    for code in ("leak", "empty-rows", "top-left", "float-keep-mask", "finite-min", "pad-query-rows",
                 "positions-shifted", "per-head-broadcast"):
        assert f"doctor.finding.{code}" in keys
