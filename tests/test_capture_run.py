"""`maskattn-tui capture -- python script.py` must not change or break the
run: the script's argv (its own `--` kept), __file__, cwd (a script that
calls os.chdir), exit status (sys.exit codes, KeyboardInterrupt, a real
Ctrl-C), its errors as plain python prints them (a SyntaxError without
capture's frames); an unusable or busy output folder is one line and exit
2 before the script starts. Plain `python` is run beside capture where the
two are compared."""

import json
import os
import signal
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from maskattn_tui import capture  # noqa: E402
from maskattn_tui.cli import main  # noqa: E402
from maskattn_tui.errors import MaskattnError  # noqa: E402

def load(folder: str) -> dict:
    """The manifest capture wrote (read as plain JSON: these tests are about the run)."""
    with open(os.path.join(folder, "capture.json"), encoding="utf-8") as file:
        return json.load(file)


SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
#: a script that reports what python gave it, into the file named by its first argument
REPORT = ("import json, os, sys\n"
          "json.dump({'argv': sys.argv, 'file': __file__, 'path0': sys.path[0], 'name': __name__,\n"
          "           'builtins': type(__builtins__).__name__, 'main': sys.modules['__main__'].__file__},\n"
          "          open(sys.argv[1], 'w'))\n")


def plain(*args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_the_script_sees_what_plain_python_gives_it(tmp_path, monkeypatch, capsys):
    (tmp_path / "report.py").write_text(REPORT)
    assert plain("report.py", "plain.json", "a", "--", "b", cwd=tmp_path).returncode == 0
    monkeypatch.chdir(tmp_path)
    assert main(["capture", "-o", "cap", "--", "python", "report.py", "captured.json", "a", "--", "b"]) == 0
    seen = json.loads((tmp_path / "captured.json").read_text())
    expected = json.loads((tmp_path / "plain.json").read_text())
    expected["argv"][1] = "captured.json"
    assert seen == expected
    assert seen["argv"] == ["report.py", "captured.json", "a", "--", "b"]
    assert load(str(tmp_path / "cap"))["command"] == ["python", "report.py", "captured.json", "a", "--", "b"]


def test_a_script_that_changes_folder_is_captured_where_capture_started(tmp_path, monkeypatch, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "cd.py").write_text(
        "import os, torch, torch.nn.functional as F\n"
        f"os.chdir({str(elsewhere)!r})\n"
        "q = torch.randn(1, 1, 3, 4)\n"
        "F.scaled_dot_product_attention(q, q, q, is_causal=True)\n"
        "open('here.txt', 'w').write(os.getcwd())\n")
    monkeypatch.chdir(tmp_path)
    assert main(["capture", "-o", "cap", "--", "python", "cd.py"]) == 0
    assert (elsewhere / "here.txt").read_text() == str(elsewhere)  # the script's own chdir worked
    assert not (elsewhere / "cap").exists()
    document = load(str(tmp_path / "cap"))
    assert document["complete"] and document["exit_status"] == 0
    assert [(c["q_len"], c["mask"]["from"], c["user_frame"]) for c in document["calls"]] == [
        (3, "is_causal", "cd.py:4")]
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["doctor", "cap"]) == 0
    assert "1 attention calls" in capsys.readouterr().out


@pytest.mark.parametrize("code, status, printed", [("None", 0, ""), ("3", 3, ""), ("256", 0, ""),
                                                   ("-1", 255, ""), ("'bye'", 1, "bye\n")])
def test_exit_codes_are_the_shells(tmp_path, capsys, code, status, printed):
    script = tmp_path / "bye.py"
    script.write_text(f"import sys\nsys.exit({code})\n")
    done = plain(str(script), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (status, printed)
    returned = main(["capture", "-o", str(tmp_path / "cap"), "--", "python", str(script)])
    assert returned % 256 == status  # what the shell gets from SystemExit(returned)
    assert load(str(tmp_path / "cap"))["exit_status"] == status
    assert capsys.readouterr().err.startswith(printed + "maskattn-tui capture: 0 attention calls")


def _error_part(stderr: str) -> str:
    return stderr.split("maskattn-tui capture:")[0]


def test_an_error_is_printed_as_python_prints_it(tmp_path, capsys):
    script = tmp_path / "boom.py"
    script.write_text("def f():\n    raise ValueError('no')\n\nf()\n")
    done = plain(str(script), cwd=tmp_path)
    assert main(["capture", "-o", str(tmp_path / "cap"), "--", "python", str(script)]) == done.returncode == 1
    assert _error_part(capsys.readouterr().err) == done.stderr
    assert load(str(tmp_path / "cap"))["exception"] == "ValueError: no"


def test_a_syntax_error_is_printed_without_captures_frames(tmp_path, capsys):
    script = tmp_path / "syntax.py"
    script.write_text("x = 1\ndef (\n")
    done = plain(str(script), cwd=tmp_path)
    assert "Traceback" not in done.stderr and "SyntaxError" in done.stderr
    assert main(["capture", "-o", str(tmp_path / "cap"), "--", "python", str(script)]) == done.returncode == 1
    assert _error_part(capsys.readouterr().err) == done.stderr


def test_keyboard_interrupt_is_130_for_the_shell_and_the_manifest(tmp_path, capsys):
    script = tmp_path / "interrupted.py"
    script.write_text("import torch, torch.nn.functional as F\n"
                      "q = torch.randn(1, 1, 3, 4)\n"
                      "F.scaled_dot_product_attention(q, q, q)\n"
                      "raise KeyboardInterrupt\n")
    done = plain(str(script), cwd=tmp_path)
    assert done.returncode == -signal.SIGINT  # python ends itself by SIGINT: the shell shows 130
    assert main(["capture", "-o", str(tmp_path / "cap"), "--", "python", str(script)]) == 130
    assert _error_part(capsys.readouterr().err) == done.stderr
    document = load(str(tmp_path / "cap"))
    assert (document["exit_status"], document["exception"], len(document["calls"])) == (130, "KeyboardInterrupt", 1)
    assert document["kinds"] == {"sdpa": 1}


def _start(folder, script, *args, cwd):
    """`maskattn-tui capture` in its own process, once its script printed `ready`."""
    process = subprocess.Popen([sys.executable, "-m", "maskattn_tui", "capture", "-o", str(folder), "--",
                                "python", str(script), *args], cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": SRC})
    assert process.stdout.readline() == "ready\n", process.communicate(timeout=60)
    return process


WAITS = ("import sys, time, torch, torch.nn.functional as F\n"
         "torch.set_num_threads(1)\n"
         "q = torch.randn(1, 1, int(sys.argv[1]), 4)\n"
         "F.scaled_dot_product_attention(q, q, q)\n"
         "print('ready', flush=True)\n"
         "time.sleep(float(sys.argv[2]))\n"
         "F.scaled_dot_product_attention(q, q, q, is_causal=True)\n")


def test_a_real_ctrl_c(tmp_path):
    script = tmp_path / "waits.py"
    script.write_text(WAITS)
    process = _start(tmp_path / "cap", script, "3", "60", cwd=tmp_path)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert err.startswith("Traceback (most recent call last):\n") and "\nKeyboardInterrupt\n" in err
    document = load(str(tmp_path / "cap"))
    assert document["complete"] and document["exit_status"] == 130
    assert [c["q_len"] for c in document["calls"]] == [3]


def test_a_second_capture_into_a_busy_folder_is_refused_before_its_script_runs(tmp_path, capsys):
    script = tmp_path / "waits.py"
    script.write_text(WAITS)
    marker = tmp_path / "ran.py"
    marker.write_text(f"open({str(tmp_path / 'ran')!r}, 'w')\n")
    first = _start(tmp_path / "cap", script, "3", "3", cwd=tmp_path)
    try:
        assert main(["capture", "-o", str(tmp_path / "cap"), "--", "python", str(marker)]) == 2
        assert capsys.readouterr().err == (f"maskattn-tui: error: {tmp_path / 'cap'}: another capture is writing "
                                           "into this folder right now; choose another with -o\n")
        assert not (tmp_path / "ran").exists()
    finally:
        first.communicate(timeout=60)
    assert first.returncode == 0
    assert [(c["q_len"], c["mask"]["from"]) for c in load(str(tmp_path / "cap"))["calls"]] == [
        (3, "none"), (3, "is_causal")]
    # the folder is free again once the first capture ended
    assert main(["capture", "-o", str(tmp_path / "cap"), "--", "python", str(marker)]) == 0
    assert (tmp_path / "ran").exists()
    with capture(tmp_path / "api") as outer:
        with pytest.raises(MaskattnError, match="another capture is writing"):
            capture(tmp_path / "api").__enter__()
    assert outer.calls == []


@pytest.mark.parametrize("out, reason", [("/proc/maskattn-nowhere", "No such file or directory"),
                                         ("a-file/sub", "Not a directory")])
def test_an_unusable_output_folder_is_one_line_before_the_script_runs(tmp_path, monkeypatch, capsys, out, reason):
    if not os.path.isdir("/proc/self"):
        pytest.skip("needs Linux's /proc")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("")
    (tmp_path / "ran.py").write_text("open('ran', 'w')\n")
    assert main(["capture", "-o", out, "--", "python", "ran.py"]) == 2
    assert capsys.readouterr().err == (f"maskattn-tui: error: {out}: cannot be used as the capture folder ({reason}); "
                                       "choose another with -o\n")
    assert not (tmp_path / "ran").exists()


def test_stdin_and_stdout_are_the_scripts(tmp_path):
    """Piped through as with plain python: capture writes only its one line, to stderr."""
    script = tmp_path / "echo.py"
    script.write_text("import sys\nsys.stdout.write(sys.stdin.read().upper())\n")
    done = subprocess.run([sys.executable, "-m", "maskattn_tui", "capture", "-o", str(tmp_path / "cap"), "--",
                           "python", str(script)], input="piped\n", capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": SRC})
    assert (done.returncode, done.stdout) == (0, "PIPED\n")
    assert done.stderr.startswith("maskattn-tui capture: 0 attention calls") and done.stderr.count("\n") == 1


def test_a_script_that_imports_transformers_itself_has_its_static_prefill_mask_recorded(tmp_path):
    """transformers imported by the script after capture started: its hooks
    go in as soon as transformers.modeling_utils is imported, in time for
    the mask generate() builds ahead of the prefill, for the static cache's
    prefill mask (the builder is called inside that forward) and for the
    cache's slots (every decode call checked against its intent)."""
    pytest.importorskip("transformers")
    script = tmp_path / "static.py"
    script.write_text(
        "import torch\n"
        "from transformers import LlamaConfig, LlamaForCausalLM\n"
        "torch.manual_seed(0)\n"
        "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,\n"
        "                     num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64)\n"
        "model = LlamaForCausalLM(config).eval()\n"
        "with torch.no_grad():\n"
        "    model.generate(input_ids=torch.tensor([[5, 6, 7, 8]]), attention_mask=torch.ones(1, 4, dtype=torch.long),\n"
        "                   max_new_tokens=2, do_sample=False, pad_token_id=0, cache_implementation='static')\n")
    folder = tmp_path / "cap"
    done = subprocess.run([sys.executable, "-m", "maskattn_tui", "capture", "-o", str(folder), "--",
                           "python", str(script)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": SRC})
    assert done.returncode == 0, done.stderr
    builders = [c for c in load(str(folder))["calls"] if c["kind"] == "hf-mask"]
    # the mask generate() builds ahead for the static cache (outside any forward), then one builder call per
    # forward: the prefill's (forward 0, 4 queries) first, then each decode step's
    assert [(c["forward"], c["generate_step"], c["q_len"]) for c in builders][:2] == [(None, None, 4), (0, 0, 4)]
    assert {c["builder"] for c in builders} == {"create_causal_mask"}
    layers = [c for c in load(str(folder))["calls"] if c["kind"] == "hf"]
    assert layers and all(isinstance(c.get("intent"), dict) for c in layers)
    doctor = subprocess.run([sys.executable, "-m", "maskattn_tui", "doctor", str(folder), "--strict"],
                            capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": SRC})
    assert doctor.returncode == 0 and "every cell matches" in doctor.stdout, doctor.stdout
