"""Every JSON the program writes goes through one writer, which refuses a
NaN or infinity (strict JSON has neither) instead of writing a bare NaN
token: on the command line, one line on stderr and exit 2."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

import maskattn_tui
from maskattn_tui import strict_json
from maskattn_tui.cli import main
from maskattn_tui.errors import MaskattnError

NAN = float("nan")


def test_the_writer_refuses_nan_and_infinity_naming_where():
    with pytest.raises(MaskattnError) as exc:
        strict_json.dumps({"steps": [{"weights": [[0.5, 0.5], [1.0, NAN]]}]})
    assert exc.value.key == "json_not_finite"
    assert exc.value.params == {"where": "$.steps[0].weights[1][1]", "value": "nan"}
    with pytest.raises(MaskattnError) as exc:
        strict_json.dumps([1, (2.0, -math.inf)])
    assert exc.value.params["where"] == "$[1][1]" and exc.value.params["value"] == "-inf"
    # an object made plain by `default` is searched too
    with pytest.raises(MaskattnError) as exc:
        strict_json.dumps({"n": object()}, default=lambda o: math.inf)
    assert exc.value.params["where"] == "$.n"
    # finite documents are written as json writes them
    doc = {"a": [1, 2.5, None, True], "b": "中"}
    assert strict_json.dumps(doc) == json.dumps(doc, ensure_ascii=False, indent=2)
    assert strict_json.dumps(doc, indent=None, ascii=True) == json.dumps(doc)


def test_the_message_exists_in_both_languages():
    e = MaskattnError("json_not_finite", where="$.x", value="nan")
    en, zh = e.message("en"), e.message("zh")
    assert "$.x" in en and "$.x" in zh and "nan" in zh and en != zh


def _one_line_exit_2(code, capsys):
    out, err = capsys.readouterr()
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "$." in err  # says where the number was
    if out:  # only strict JSON: a bare NaN / Infinity token would be refused here
        json.loads(out, parse_constant=lambda token: pytest.fail(f"{token} written"))
    return out, err


def test_json_command_refuses_a_nan(monkeypatch, capsys):
    from maskattn_tui.cli import jsonout

    monkeypatch.setattr(jsonout, "document", lambda views, lang: {"schema": 1, "steps": [{"scale": NAN}]})
    out, _ = _one_line_exit_2(main(["json", "--lang", "en"]), capsys)
    assert out == ""


def test_check_json_refuses_a_nan(monkeypatch, capsys):
    from maskattn_tui.lesson import checks

    real = checks.run_checks()
    monkeypatch.setattr(checks, "run_checks",
                        lambda: [dataclasses.replace(real[0], passed=NAN), *real[1:]])
    out, _ = _one_line_exit_2(main(["check", "--json", "--lang", "en"]), capsys)
    assert out == ""


def test_doctor_json_refuses_a_nan_and_writes_its_error_object(monkeypatch, capsys, tmp_path):
    np = pytest.importorskip("numpy")
    from maskattn_tui.doctor import report

    path = tmp_path / "causal.npy"
    np.save(path, np.tril(np.ones((4, 4), dtype=bool)))
    monkeypatch.setattr(report, "to_json", lambda *a, **k: {"schema": "maskattn-doctor/1", "alignment_score": NAN})
    out, _ = _one_line_exit_2(main(["doctor", str(path), "--json", "--lang", "en"]), capsys)
    error = json.loads(out)  # the error object, itself strict JSON
    assert error["error"]["code"] == "json_not_finite" and error["error"]["exit"] == 2


def test_capture_manifest_refuses_a_nan(tmp_path):
    from maskattn_tui.capture import manifest

    with pytest.raises(MaskattnError):
        manifest.write(str(tmp_path), {"command": ["run"], "seconds": NAN}, complete=False)
    assert not (tmp_path / manifest.MANIFEST).exists()


def test_a_capture_call_with_a_nan_is_written_as_its_error(tmp_path):
    """Capture never breaks the user's run: the call's line says what was
    refused instead of holding a NaN token."""
    import os

    from maskattn_tui.capture.recorder import Recorder

    recorder = Recorder(str(tmp_path))
    recorder.record("sdpa", lambda entry, store: {"scale": NAN, "q": [2, 4]}, None)
    recorder.record("sdpa", lambda entry, store: {"scale": 0.5}, None)
    recorder.close()
    lines = (tmp_path / f"calls-{os.getpid()}.jsonl").read_text(encoding="utf-8").splitlines()
    first, second = (json.loads(line, parse_constant=lambda token: pytest.fail(token)) for line in lines)
    assert "$.scale" in first["error"] and "q" not in first
    assert second["scale"] == 0.5 and second["index"] == 1


def test_one_writer():
    """No module but strict_json calls json.dump / json.dumps."""
    root = Path(maskattn_tui.__file__).parent
    writers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if "json.dump" in p.read_text(encoding="utf-8").replace("strict_json.dump", ""))
    assert writers == ["strict_json.py"]


def test_a_line_with_encoded_parts_reads_as_the_plain_line():
    """Capture's calls splice a part encoded once (a mask's description
    every layer of a step shares) into each line: the line must parse to the
    very document a plain encoding gives, whatever the part holds."""
    line, encoded = strict_json.line_writer(default=float, spliced=("mask", "intent"))
    mask = {"from": "attn_mask", "hashes": [["ab"], ["cd"]], "note": 'a "quoted" \u4e2d \x1b'}
    config = {"model_type": "llama", "sliding_window": None}
    intent = encoded({"layer": 1, "q_pos": [[0, 16]]}, {"config": encoded(config), "module": encoded({})})
    assert json.loads(intent.text) == intent.value == {"layer": 1, "q_pos": [[0, 16]], "config": config, "module": {}}
    empty = encoded({}, {"config": encoded(config)})
    assert json.loads(empty.text) == {"config": config}
    document = {"index": 3, "kind": "hf", "mask": encoded(mask), "intent": intent, "other": encoded(mask).value}
    text = line(document)
    assert text.isascii() and "\n" not in text
    plain = {**document, "mask": mask, "intent": intent.value}
    assert json.loads(text) == plain == json.loads(json.dumps(plain))
    assert isinstance(document["mask"], strict_json.Encoded)  # the caller's document is left as it was
    # a part is strict too: its NaN is refused where it is made, naming where it sits
    with pytest.raises(MaskattnError) as exc:
        encoded({"min": NAN})
    assert exc.value.params["where"] == "$.min"
    # an Encoded under a key not spliced is no JSON value
    with pytest.raises(TypeError):
        line({"index": 1, "elsewhere": encoded(mask)})
