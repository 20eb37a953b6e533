"""A capture folder is untrusted data (capture/folder.py, records.py,
table_files.py): each hostile folder is a real capture (three SDPA calls,
one of them the decode is_causal bug) damaged one way, read by `doctor
DIR`, `print --mask DIR` and the picker. Each is refused in one line
(exit 2) or left out with a note while the rest is read; never a
traceback, a hang (FIFO, /dev/zero: a subprocess with a timeout) or
memory without bound."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from maskattn_tui.capture.folder import load  # noqa: E402
from maskattn_tui.maskmode.capture_doc import open_capture  # noqa: E402
from maskattn_tui.cli import main  # noqa: E402
from maskattn_tui.errors import MaskattnError  # noqa: E402


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A 4x4 causal prefill, then two decode steps with is_causal=True (1x5, 1x6)."""
    from maskattn_tui import capture

    folder = tmp_path_factory.mktemp("capture") / "made"
    torch.manual_seed(0)
    q = k = torch.randn(1, 2, 4, 8)
    with capture(str(folder)):
        F.scaled_dot_product_attention(q, k, k, is_causal=True)
        for _ in range(2):
            k = torch.cat([k, torch.randn(1, 2, 1, 8)], dim=2)
            F.scaled_dot_product_attention(torch.randn(1, 2, 1, 8), k, k, is_causal=True)
    return folder


@pytest.fixture
def folder(made, tmp_path):
    copy = tmp_path / "c"
    shutil.copytree(made, copy)
    return copy


def hashes(folder) -> list[str]:
    """Each call's mask hash, in call order."""
    return [c["mask"]["hashes"][0][0] for c in json.loads((folder / "capture.json").read_text())["calls"]]


def doctor(capsys, folder, *args):
    capsys.readouterr()
    code = main(["doctor", str(folder), *args])
    out, err = capsys.readouterr()
    return code, out, err


def cli(*argv, timeout=60):
    """The command in a process of its own (a hang would be a timeout, not a stuck suite)."""
    return subprocess.run([sys.executable, "-m", "maskattn_tui", *argv], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "COLUMNS": "100"})


#: The child's own peak RSS (VmHWM starts again at exec; ru_maxrss would carry this process's).
PEAK = ("import sys; from maskattn_tui.cli import main; code = main(sys.argv[1:]); "
        "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')), file=sys.stderr); "
        "sys.exit(code)")


def peak(*argv) -> tuple[subprocess.CompletedProcess, int]:
    """The command's result (without its last stderr line) and its peak resident memory in KiB."""
    done = subprocess.run([sys.executable, "-c", PEAK, *argv], capture_output=True, text=True, timeout=60)
    *lines, rss = done.stderr.splitlines()
    done.stderr = "".join(line + "\n" for line in lines)
    return done, int(rss)


def one_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1 and err.startswith("maskattn-tui: error: "), err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err


def without_manifest(folder):
    """A killed run: calls files only."""
    (folder / "capture.json").unlink()
    return next(folder.glob("calls-*.jsonl"))


def test_the_made_folder_reads_whole(folder, capsys):
    code, out, err = doctor(capsys, folder)
    assert code == 0 and err == ""
    assert "3 attention calls" in out and "[left out]" not in out
    assert load(str(folder))["notes"] == []


# --- links ------------------------------------------------------------------------


def test_a_mask_symlinked_out_of_the_folder_is_left_out(folder, tmp_path, capsys):
    outside = tmp_path / "outside.npy"
    np.save(outside, np.tril(np.ones((7, 7), bool)))
    target = folder / "masks" / f"{hashes(folder)[2]}.npy"
    target.unlink()
    target.symlink_to(outside)
    code, out, err = doctor(capsys, folder)
    assert code == 0 and err == ""
    note = next(line for line in out.splitlines() if "[left out]" in line)
    assert f"call(s) #2: {target}: a symbolic link" in note
    assert "7x7" not in out and out.count("  mask ") == 2  # the outside table is never diagnosed
    # the doctor in Chinese says the same
    code, out, _ = doctor(capsys, folder, "--lang", "zh")
    assert "[未使用] 调用 #2：" in out and "符号链接" in out


def test_a_symlink_inside_the_folder_is_refused_too(folder, capsys):
    first, second = hashes(folder)[:2]
    target = folder / "masks" / f"{second}.npy"
    target.unlink()
    target.symlink_to(folder / "masks" / f"{first}.npy")
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and "call(s) #1:" in out and "a symbolic link" in out


def test_a_hard_link_is_refused(folder, tmp_path, capsys):
    outside = tmp_path / "elsewhere.npy"
    target = folder / "masks" / f"{hashes(folder)[0]}.npy"
    os.link(target, outside)  # the same bytes, a second name outside the folder
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and f"call(s) #0: {target}: a file with 2 names (hard links)" in out
    # mask mode opens the first slice whose table reads: call 1's
    assert main(["print", "--mask", str(folder), "--width", "120"]) == 0
    assert "call 1 (2/3)" in capsys.readouterr().out


def test_masks_folder_as_a_symlink_is_refused(folder, tmp_path, capsys):
    shutil.move(folder / "masks", tmp_path / "real_masks")
    (folder / "masks").symlink_to(tmp_path / "real_masks")
    code, out, err = doctor(capsys, folder)
    assert code == 2 and out == ""
    one_line(err, f"{folder / 'masks'}: a symbolic link")


@pytest.mark.parametrize("name", ["capture.json", "calls"])
def test_manifest_or_calls_file_as_a_symlink(folder, tmp_path, capsys, name):
    if name == "capture.json":
        real = tmp_path / "real.json"
        shutil.move(folder / "capture.json", real)
        (folder / "capture.json").symlink_to(real)
        code, out, err = doctor(capsys, folder)
        assert code == 2 and out == ""
        one_line(err, f"{folder / 'capture.json'}: a symbolic link")
    else:
        calls = without_manifest(folder)
        shutil.move(calls, tmp_path / "real.jsonl")
        calls.symlink_to(tmp_path / "real.jsonl")
        code, out, err = doctor(capsys, folder)
        assert code == 2 and out == ""
        one_line(err, f"{calls}: a symbolic link")


# --- special files: never block, never read without end --------------------------------


def test_a_fifo_named_capture_json_does_not_block(folder):
    (folder / "capture.json").unlink()
    os.mkfifo(folder / "capture.json")
    done = cli("doctor", str(folder), timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    one_line(done.stderr, "capture.json: a pipe (FIFO)")


def test_a_fifo_among_calls_files_is_left_out_and_the_rest_read(folder):
    without_manifest(folder)
    os.mkfifo(folder / "calls-1.jsonl")
    done = cli("doctor", str(folder))
    assert done.returncode == 0 and done.stderr == ""
    assert "calls-1.jsonl: a pipe (FIFO), not a file" in done.stdout and "3 attention calls" in done.stdout
    done = cli("print", "--mask", str(folder), "--width", "100")  # the app's reader: the same
    assert done.returncode == 0 and "1 left out of the folder" in done.stdout


def test_capture_json_to_dev_zero_is_not_read(folder, made):
    (folder / "capture.json").unlink()
    (folder / "capture.json").symlink_to("/dev/zero")
    done, rss = peak("doctor", str(folder))
    error = done.stderr.strip()
    assert done.returncode == 2 and "capture.json: a symbolic link" in error
    _, whole = peak("doctor", str(made))  # the same command on the folder as it was made
    assert rss < whole + 16 * 1024  # KiB: the process never read from the device
    # a device node itself (root can make one; then it is refused as a device, unopened)
    (folder / "capture.json").unlink()
    try:
        os.mknod(folder / "capture.json", 0o600 | 0o020000, os.makedev(1, 5))
    except PermissionError:
        return
    done = cli("doctor", str(folder))
    assert done.returncode == 2
    one_line(done.stderr, "capture.json: a character device (like /dev/zero)")


def test_a_huge_manifest_is_refused_by_its_size_unread(folder, made):
    with open(folder / "capture.json", "r+b") as file:
        file.truncate(300 << 20)  # sparse: 300 MiB that would be read whole
    done, rss = peak("doctor", str(folder))
    error = done.stderr.strip()
    assert done.returncode == 2 and "capture.json: 300.0 MiB, more than the 256.0 MiB" in error
    _, whole = peak("doctor", str(made))
    assert rss < whole + 16 * 1024  # not one of the 300 MiB was read


def test_a_huge_sparse_mask_file_is_refused_by_its_size(folder, capsys):
    target = folder / "masks" / f"{hashes(folder)[1]}.npy"
    with open(target, "r+b") as file:
        file.truncate(5 << 30)
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and "call(s) #1:" in out and "5.0 GiB, more than the 4.0 GiB" in out


# --- a mask file is checked against its name and its call ----------------------------------


def test_a_table_put_in_another_ones_place_is_refused(folder, capsys):
    digest = hashes(folder)[0]
    np.save(folder / "masks" / f"{digest}.npy", np.ones((4, 4), bool))  # a 4x4, as the call, but not its table
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and "call(s) #0:" in out and "its contents do not hash to its name" in out
    assert "all visible" not in out


def test_a_call_naming_a_table_of_another_shape_is_told(folder, capsys):
    document = json.loads((folder / "capture.json").read_text())
    document["calls"][0]["mask"]["hashes"] = [[hashes(folder)[1]]]  # the 1x5 table for the 4x4 call
    (folder / "capture.json").write_text(json.dumps(document))
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and "used by calls of different shapes (1x5, 4x4)" in out
    code, out, err = doctor(capsys, folder, "--expect", "--call", "0")  # the call's only slice: nothing to check
    assert code == 2 and out == ""
    one_line(err, "call(s) #0:", "holds a 1x5 table where the call has 4x4")
    code, out, _ = doctor(capsys, folder, "--expect")  # the other calls are checked, the left-out one said
    assert code == 1 and "call(s) #0:" in out and "holds a 1x5 table where the call has 4x4" in out
    assert "call 1 (-) batch 0 head 0:" in out and "of 2 slices match" in out


def test_every_mask_refused_is_one_line(folder):
    for digest in hashes(folder):
        path = folder / "masks" / f"{digest}.npy"
        path.unlink()
        os.mkfifo(path)
    done = cli("doctor", str(folder))
    assert done.returncode == 2 and done.stdout == ""
    one_line(done.stderr, "call(s) #0:", "a pipe (FIFO)")
    done = cli("print", "--mask", str(folder))
    assert done.returncode == 2 and done.stdout == ""
    one_line(done.stderr, "a pipe (FIFO)")
    for digest in hashes(folder):  # the app's reader, in this process (folders: nothing could block)
        path = folder / "masks" / f"{digest}.npy"
        path.unlink()
        path.mkdir()
    with pytest.raises(MaskattnError, match="a folder, not a file"):
        open_capture(str(folder))


def test_a_missing_mask_says_so(folder, capsys):
    (folder / "masks" / f"{hashes(folder)[2]}.npy").unlink()
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and "call(s) #2:" in out and ": no such file" in out


# --- the calls files: lines told by number -----------------------------------------------


def test_a_torn_utf8_character_at_the_end_is_a_cut_line(folder, capsys):
    calls = without_manifest(folder)
    data = calls.read_bytes()
    calls.write_bytes(data[:-1] + "\u4e2d".encode()[:2])  # the last line loses its end and half a character
    code, out, err = doctor(capsys, folder)
    assert code == 0 and err == ""
    assert f"{calls} line 3: cut short" in out and "2 attention calls" in out
    assert "no capture.json" in out and "capture of `-`" not in out
    code, out, _ = doctor(capsys, folder, "--json")
    assert code == 0 and json.loads(out)["manifest"] is False


def test_a_bad_byte_mid_file_is_named_with_its_line_and_column(folder, capsys):
    calls = without_manifest(folder)
    lines = calls.read_bytes().split(b"\n")
    lines[1] = lines[1][:10] + b"\xff" + lines[1][10:]
    calls.write_bytes(b"\n".join(lines))
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and f"{calls} line 2: not UTF-8 (byte 0xff at column 11)" in out


@pytest.mark.parametrize("where", ["line", "manifest"])
def test_deep_nesting_is_refused_without_recursion(folder, capsys, where):
    deep = "[" * 100_000 + "]" * 100_000
    if where == "line":
        calls = without_manifest(folder)
        calls.write_text(calls.read_text() + '{"kind": "sdpa", "x": ' + deep + "}\n")
        code, out, err = doctor(capsys, folder)
        assert code == 0 and err == "" and "line 4: JSON nested deeper than 32 levels" in out
    else:
        (folder / "capture.json").write_text('{"schema": "maskattn-capture/1", "calls": ' + deep + "}")
        code, out, err = doctor(capsys, folder)
        assert code == 2 and out == ""
        one_line(err, "capture.json: JSON nested deeper than 32 levels")


@pytest.mark.parametrize("damage, said", [
    (lambda r: r.update(mask=5), "`mask` is 5, not what capture writes"),
    (lambda r: r["mask"].update({"from": "???"}), '`mask.from` is "???", not what capture writes'),
    (lambda r: r.update(q_len="4"), '`q_len` is "4"'),
    (lambda r: r.pop("kind"), "`kind` is missing"),
    (lambda r: r["mask"].update(hashes=[["../../etc/passwd"]]), "`mask.hashes` is [[\"../../etc/passwd\"]]"),
    (lambda r: r.update(documents=[[1, "x"]]), "`documents`"),
])
def test_a_line_of_the_wrong_types_is_named(folder, capsys, damage, said):
    calls = without_manifest(folder)
    lines = calls.read_text().splitlines()
    record = json.loads(lines[1])
    damage(record)
    lines[1] = json.dumps(record)
    calls.write_text("\n".join(lines) + "\n")
    code, out, err = doctor(capsys, folder)
    assert code == 0 and err == "", err
    assert f"{calls} line 2: {said}" in out
    assert "2 attention calls" in out


def test_a_line_cut_short_and_a_line_not_json(folder, capsys):
    calls = without_manifest(folder)
    text = calls.read_text()
    calls.write_text("NaN\n" + text[:-20])  # a non-JSON constant first, the last line without its end
    code, out, _ = doctor(capsys, folder, "--json")
    report = json.loads(out)
    assert code == 0 and report["calls"] == 2
    assert any("line 1: not JSON" in n for n in report["notes"])
    assert any("line 4: cut short" in n for n in report["notes"])


def test_a_line_too_long_is_left_out(folder, capsys):
    calls = without_manifest(folder)
    calls.write_text(calls.read_text() + '{"kind": "sdpa", "pad": "' + "x" * (5 << 20) + '"}\n')
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and "line 4: a line of 5.0 MiB, more than the 4.0 MiB" in out


def test_a_manifest_with_wrong_types_names_the_call(folder, capsys):
    document = json.loads((folder / "capture.json").read_text())
    document["calls"][1]["mask"] = 5
    document["command"] = {"not": "a list"}
    (folder / "capture.json").write_text(json.dumps(document))
    code, out, _ = doctor(capsys, folder)
    assert code == 0
    assert "capture.json calls[1]: `mask` is 5" in out and '`command` is {"not": "a list"}' in out


def test_nothing_usable_is_one_line(folder, capsys):
    calls = without_manifest(folder)
    calls.write_text('{"kind": 5}\n')
    code, out, err = doctor(capsys, folder)
    assert code == 2 and out == ""
    one_line(err, "line 1: `kind` is 5")


# --- text from the folder is printed escaped ---------------------------------------------


def test_control_characters_in_command_and_site_are_escaped(folder, capsys):
    document = json.loads((folder / "capture.json").read_text())
    document["command"] = ["python", "\x1b]0;owned\x07x.py", "\x1b[2J"]
    document["calls"][0]["site"] = "evil\x1b[31m.attn\u202e"
    document["calls"][0]["user_frame"] = "a\rb"
    document["exception"] = "Boom\x1b[2J"
    (folder / "capture.json").write_text(json.dumps(document))
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "`python \\x1b]0;owned\\x07x.py \\x1b[2J`" in out and "evil\\x1b[31m.attn\\u202e" in out
    assert "Boom\\x1b[2J" in out
    code, out, _ = doctor(capsys, folder, "--json")
    report = json.loads(out)
    assert "\x1b" not in json.dumps(report, ensure_ascii=False)
    assert report["command"][1] == "\\x1b]0;owned\\x07x.py"
    # the app's title and print --mask
    doc = open_capture(str(folder))
    assert "evil\\x1b[31m.attn\\u202e" in doc.capture.label("en") and "\x1b" not in doc.capture.label("zh")
    assert main(["print", "--mask", str(folder), "--width", "120"]) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "evil\\x1b[31m.attn" in printed


def test_a_folder_name_with_control_characters_is_escaped(made, tmp_path, capsys):
    odd = tmp_path / "odd\x1b[2Jname"
    shutil.copytree(made, odd)
    code, out, _ = doctor(capsys, odd)
    assert code == 0 and "\x1b" not in out and "odd\\x1b[2Jname" in out
    assert main(["print", "--mask", str(odd), "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "odd\\x1b[2Jname" in out


def _escaped_strings(value):
    """An independent walk: every string of a parsed value through printable.escaped."""
    from maskattn_tui.printable import escaped

    if isinstance(value, str):
        return escaped(value)
    if isinstance(value, dict):
        return {escaped(k): _escaped_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_escaped_strings(v) for v in value]
    return value


from hypothesis import given, settings, strategies as st  # noqa: E402

_TEXT = st.text(alphabet=st.sampled_from(list("ab\\\"/u01n") + ["\x1b", "\n", "\t", "\r", "\b", "\f", "\x00", "\x7f",
                                                                 "\x85", "\x9f", "\u202e", "\u2066", "\u4e2d", "\ud800"]),
                max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_TEXT, st.one_of(_TEXT, st.lists(_TEXT, max_size=3)), max_size=4), st.booleans())
def test_escaping_the_json_text_is_escaping_each_parsed_string(value, ascii_only):
    """records.printable_json works on the text, before parsing (one C-speed pass over a
    70 MB manifest); it must equal escaping every string after parsing, backslashes and all."""
    from maskattn_tui.capture.records import printable_json

    text = json.dumps(value, ensure_ascii=ascii_only)
    assert json.loads(printable_json(text)) == _escaped_strings(value)


# --- the app --------------------------------------------------------------------------


async def test_the_app_title_shows_a_hostile_site_escaped_and_steps_past_a_refused_table(folder, tmp_path):
    from maskattn_tui.tui import make_app
    from maskattn_tui.tui.mask_screen import MaskScreen

    document = json.loads((folder / "capture.json").read_text())
    document["calls"][0]["site"] = "evil\x1b]0;owned\x07\x1b[2J"
    (folder / "capture.json").write_text(json.dumps(document))
    outside = tmp_path / "outside.npy"
    np.save(outside, np.ones((1, 5), bool))
    target = folder / "masks" / f"{hashes(folder)[1]}.npy"
    target.unlink()
    target.symlink_to(outside)
    notices = []
    app = make_app(mask=open_capture(str(folder)))
    async with app.run_test(size=(160, 30)) as pilot:
        app.notify = lambda message, **kw: notices.append(message)
        await pilot.pause()
        assert isinstance(app.screen, MaskScreen)
        shown = str(app.screen.query_one("#mask-title").render())
        assert "evil\\x1b]0;owned\\x07\\x1b[2J" in shown and "\x1b" not in shown and "\x07" not in shown
        await pilot.press("n")  # call 1's table is a link out of the folder: said, and stepped over
        await pilot.pause()
        assert len(notices) == 1 and "call(s) #1:" in notices[0] and "a symbolic link" in notices[0], notices
        assert "call 2 (3/3)" in str(app.screen.query_one("#mask-title").render())
        await pilot.press("M")  # back over the refused distinct mask to the first
        await pilot.pause()
        assert "call 0 (1/3)" in str(app.screen.query_one("#mask-title").render()) and len(notices) == 2


def test_without_descriptor_relative_opening_links_and_fifos_are_still_refused(folder, tmp_path, capsys,
                                                                              monkeypatch):
    """Where the system has no dir_fd (folder._AT false), names are joined to the
    folder's path and each is still looked at without following links or opening
    what is not a file."""
    from maskattn_tui.capture import folder as reader

    monkeypatch.setattr(reader, "_AT", False)
    outside = tmp_path / "outside.npy"
    np.save(outside, np.tril(np.ones((7, 7), bool)))
    target = folder / "masks" / f"{hashes(folder)[2]}.npy"
    target.unlink()
    target.symlink_to(outside)
    calls = without_manifest(folder)
    (folder / "calls-2.jsonl").mkdir()  # not a file (in-process: a FIFO is the subprocess tests')
    code, out, err = doctor(capsys, folder)
    assert code == 0 and err == "" and "3 attention calls" in out
    assert f"call(s) #2: {target}: a symbolic link" in out and "calls-2.jsonl: a folder, not a file" in out
    assert calls.exists()


def test_a_call_capture_could_not_record_is_said_with_its_error(folder, capsys):
    calls = without_manifest(folder)
    calls.write_text(calls.read_text() + '{"index": 3, "kind": "sdpa", "error": "RuntimeError: \\u001b[2Jboom"}\n')
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and "line 4: capture could not record this call (RuntimeError: \\x1b[2Jboom)" in out
    assert "\x1b" not in out


def test_notes_past_fifty_are_counted(folder, capsys):
    calls = without_manifest(folder)
    calls.write_text("[]\n" * 70 + calls.read_text())
    code, out, _ = doctor(capsys, folder, "--lang", "zh")
    assert code == 0 and out.count("[未使用]") == 51 and "[未使用] ……另有 20 条" in out
    code, out, _ = doctor(capsys, folder, "--json")
    report = json.loads(out)
    assert len(report["notes"]) == 50 and report["notes_left_out"] == 20 and report["calls"] == 3


def test_strict_fails_when_anything_was_left_out(folder, capsys):
    document = json.loads((folder / "capture.json").read_text())
    document["calls"] = document["calls"][:1]  # the 4x4 causal prefill alone: nothing wrong
    (folder / "capture.json").write_text(json.dumps(document))
    assert doctor(capsys, folder, "--strict")[0] == 0
    document["calls"].append(5)
    (folder / "capture.json").write_text(json.dumps(document))
    code, out, _ = doctor(capsys, folder, "--strict")
    assert code == 1 and "calls[1]: not a JSON object" in out  # a part not read is a part not checked
    assert doctor(capsys, folder)[0] == 0


def test_a_pickled_mask_file_is_refused_unread(folder, capsys, monkeypatch):
    """An object array (np.save pickles it) in a mask's place: refused by its header, never unpickled."""
    import pickle

    unpickled = []
    for name in ("load", "loads"):
        monkeypatch.setattr(pickle, name, lambda *a, **k: unpickled.append(a))
    target = folder / "masks" / f"{hashes(folder)[0]}.npy"
    with open(target, "wb") as file:  # (np.save itself calls pickle.dump, which is left alone)
        np.save(file, np.array([[object()] * 4] * 4, dtype=object), allow_pickle=True)
    code, out, _ = doctor(capsys, folder)
    assert code == 0 and "call(s) #0:" in out and "pickled Python objects): refused without unpickling" in out
    assert unpickled == []
