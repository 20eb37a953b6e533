"""The doctor's own choices, numpy only: description length between
readings, both readings named when equally simple, -inf beside finfo.min,
more rows than keys, every slice checked by --expect, --strict, the diff
grid and the polarity hint, --against. Issue 16, points 9-15. Each mask
is built by its definition (index arithmetic), not by the doctor."""

import json

import numpy as np

from maskattn_tui.cli.commands import main
from maskattn_tui.doctor import diagnose, load_mask
from maskattn_tui.doctor.report import finding_message

F32_MIN = float(np.finfo(np.float32).min)


def grid(n):
    return np.arange(n)[:, None], np.arange(n)[None, :]


def errors(d):
    return [f.code for f in d.findings if f.level == "error"]


def test_packed_documents_with_one_stray_cell_stay_documents():
    q, k = grid(8)
    doc = np.repeat([0, 1, 2], [3, 2, 3])
    mask = (k <= q) & (doc[k] == doc[q])
    mask[3, 2] = True  # one cell across documents 0 and 1
    d = diagnose(mask)
    assert d.family == "documents" and d.documents == (3, 2, 3) and d.tree is None
    assert d.fit.comparison.count == 1 and d.fit.comparison.cells == ((3, 2),)


def test_two_finfo_min_masks_added_overflow_to_minus_inf():
    q, k = grid(4)
    causal = np.where(k <= q, 0.0, F32_MIN).astype(np.float32)
    padding = np.where(np.array([1, 1, 1, 0])[None, :] == 1, 0.0, F32_MIN).astype(np.float32)
    with np.errstate(over="ignore"):
        added = causal + padding  # finfo.min + finfo.min = -inf in float32
    assert np.isneginf(added).any()
    d = diagnose(added)
    assert d.representation.kind == "additive-finite" and d.representation.overflow
    overflow = d.findings[d.codes().index("finite-min-overflow")]
    assert "-inf" in finding_message(overflow, d, "en")
    assert "finite-min-overflow" not in diagnose(causal).codes()


def test_a_leak_that_is_also_a_prefix_names_both_readings():
    mask = np.tril(np.ones((6, 6), dtype=bool))
    mask[0, 1] = True  # cell for cell a prefix-LM of 2
    d = diagnose(mask)
    readings = {(d.family, d.fit.comparison.count)} | {(s.family, s.comparison.count) for s in d.alternatives}
    assert {("prefix", 0), ("causal", 1)} <= readings
    assert errors(d) == [] and "readings" in d.codes()
    text = finding_message(d.findings[d.codes().index("readings")], d, "en")
    assert "prefix 2" in text and "(0,1)" in text
    mask[2, 4] = True  # a leak no simple reading explains stays an error
    assert "leak" in errors(diagnose(mask))


def test_more_rows_than_keys_has_no_negative_cache():
    d = diagnose(np.ones((7, 3), dtype=bool))
    assert "top-left" not in d.codes() and d.family == "cross-attention" and d.offset == 0
    assert all("-4" not in finding_message(f, d, "en") for f in d.findings)
    d = diagnose(np.tril(np.ones((7, 3), dtype=bool)))  # is_causal=True with 7 queries, 3 keys
    assert (d.family, d.alignment.alignment, d.fit.comparison.count) == ("causal", "top-left", 0)
    assert errors(d) == [] and "top-left" not in d.codes()


def four_d(tmp_path):
    q, k = grid(6)
    causal = k <= q
    mask = np.stack([causal, causal.copy()])[:, None]  # (2, 1, 6, 6)
    mask[1, 0, :, :2] = False  # batch 1: two left PAD keys, 11 cells hidden that causal shows
    np.save(tmp_path / "m.npy", mask)
    return tmp_path / "m.npy"


def test_expect_checks_every_slice(tmp_path, capsys):
    path = four_d(tmp_path)
    assert main(["doctor", str(path), "--expect"]) == 1
    out = capsys.readouterr().out
    assert "11 of 72 cells" in out and "batch 1, head 0: 11 cells differ" in out
    assert main(["doctor", str(path), "--expect", "--batch", "0"]) == 0
    capsys.readouterr()
    assert main(["doctor", str(path), "--expect", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["match"] is False and doc["slice"] == [1, 0] and doc["differs_count"] == 11
    assert [s["differs_count"] for s in doc["slices"]] == [0, 11]


def test_the_report_lists_the_distinct_slices(tmp_path, capsys):
    path = four_d(tmp_path)
    assert main(["doctor", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["index"] for s in doc["slices"]] == [[0, 0], [1, 0]]
    assert [s["pad_key_count"] for s in doc["slices"]] == [0, 2]


def test_strict_exits_1_on_an_error_finding(tmp_path, capsys):
    q, k = grid(6)
    leaky = k <= q
    leaky[2, 4] = True
    np.save(tmp_path / "leak.npy", leaky)
    np.save(tmp_path / "fine.npy", k <= q)
    assert main(["doctor", str(tmp_path / "leak.npy")]) == 0
    assert main(["doctor", str(tmp_path / "leak.npy"), "--strict"]) == 1
    assert main(["doctor", str(tmp_path / "fine.npy"), "--strict"]) == 0
    both = np.stack([k <= q, leaky])  # the error is in slice 1 only
    np.save(tmp_path / "both.npy", both)
    assert main(["doctor", str(tmp_path / "both.npy"), "--strict"]) == 1


def test_expect_failure_shows_a_grid_and_the_polarity_hint(tmp_path, capsys):
    q, k = grid(6)
    np.save(tmp_path / "mha.npy", k > q)  # nn.MultiheadAttention: True = blocked
    assert main(["doctor", str(tmp_path / "mha.npy"), "--expect"]) == 1
    out = capsys.readouterr().out
    assert "36 of 36" in out and "--polarity blocked" in out
    assert "  q0    !!!!!!  #....." in out
    assert main(["doctor", str(tmp_path / "mha.npy"), "--expect", "--polarity", "blocked"]) == 0


def test_against_compares_two_files_cell_by_cell(tmp_path, capsys):
    q, k = grid(5)
    np.save(tmp_path / "bool.npy", k <= q)
    np.save(tmp_path / "additive.npy", np.where(k <= q, 0.0, -np.inf).astype(np.float32))
    other = k <= q
    other[3, 4] = True
    np.save(tmp_path / "other.npy", other)
    assert main(["doctor", str(tmp_path / "bool.npy"), "--against", str(tmp_path / "additive.npy")]) == 0
    capsys.readouterr()
    assert main(["doctor", str(tmp_path / "bool.npy"), "--against", str(tmp_path / "other.npy")]) == 1
    out = capsys.readouterr().out
    assert "1 of 25 cells" in out and "(3,4)" in out
    np.save(tmp_path / "wide.npy", np.ones((5, 6), dtype=bool))
    assert main(["doctor", str(tmp_path / "bool.npy"), "--against", str(tmp_path / "wide.npy")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "5x5" in err and "5x6" in err


def test_a_tree_is_not_read_in_packed_documents():
    q, k = grid(8)
    doc = np.repeat([0, 1, 2], [3, 2, 3])
    d = diagnose((k <= q) & (doc[k] == doc[q]))
    assert d.family == "documents" and d.alternatives == ()


def test_json_names_the_family_and_its_parts(tmp_path, capsys):
    q, k = np.arange(3)[:, None] + 5, np.arange(12)[None, :]
    np.save(tmp_path / "static.npy", k <= q)  # a static cache of 12: 5 filled, 3 new, 4 unused
    assert main(["doctor", str(tmp_path / "static.npy"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["family"], doc["offset"], doc["unused_slots"], doc["unused_slot_count"]) == \
        ("static-cache", 5, [8, 12], 4)
    assert doc["alternatives"] == [] and doc["alignment"] == "offset" and doc["pad_key_count"] == 0


def test_load_mask_slices_still_work(tmp_path):
    path = four_d(tmp_path)
    mask, info = load_mask(path, batch=1, head=0)
    assert diagnose(mask, source=info).pad_runs == ((0, 2),)


def test_documents_with_a_window_beat_a_window_with_stray_cells():
    q, k = grid(10)
    doc = np.repeat([0, 1, 2, 3], [3, 2, 4, 1])
    d = diagnose((k <= q) & (doc[k] == doc[q]) & (q - k < 2))  # FlexAttention's documents & window 2
    assert (d.family, d.documents, d.window, d.fit.comparison.count) == ("documents", (3, 2, 4, 1), 2, 0)
    assert errors(d) == []


def test_strict_applies_to_a_hugging_face_pair(capsys):
    # left padding with arange position ids: positions-shifted, an error of the pair
    argv = ["doctor", "--attention-mask", "0,0,1,1,1", "--position-ids", "0,1,2,3,4"]
    assert main(argv) == 0
    assert main([*argv, "--strict"]) == 1
    assert main(["doctor", "--attention-mask", "0,0,1,1,1", "--position-ids", "0,0,0,1,2", "--strict"]) == 0
