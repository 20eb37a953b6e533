"""`maskattn-tui serve`'s refusals (one line, exit 2, before any server
starts) and what it says on start; the browser test is test_serve_browser."""

from __future__ import annotations

import socket
import sys

import pytest

from helpers import run_main
from maskattn_tui.cli.serve import app_command, public_url, start_lines


def test_without_the_extra_one_line_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)  # as if not installed
    ran = run_main("serve", "--port", "8123")
    assert ran.returncode == 2 and ran.stderr.count("\n") == 1
    assert "pip install 'maskattn-tui[serve]'" in ran.stderr
    ran = run_main("serve", "--lang", "zh")
    assert ran.returncode == 2 and "可选依赖" in ran.stderr


@pytest.mark.parametrize("argv,words", [
    (("serve", "--port", "70000"), ["--port", "65535"]),
    (("serve", "--", "print"), ["'print'", "app's options"]),
    (("serve", "--", "--step", "9"), ["--step"]),
    (("serve", "--", "--exit-at-end"), ["--play"]),
    (("serve", "--", "--mask", "/nonexistent/m.npy"), ["m.npy"]),
    (("serve", "--", "--past", "99999999"), ["--past"]),
])
def test_bad_options_are_refused_before_serving(argv, words):
    ran = run_main(*argv)
    assert ran.returncode == 2 and ran.stderr.count("\n") == 1 and ran.stdout == "", ran.stderr
    assert all(w in ran.stderr for w in words), ran.stderr


def test_a_taken_port_is_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ran = run_main("serve", "--port", str(port))
    assert ran.returncode == 2 and f"127.0.0.1:{port}" in ran.stderr and ran.stderr.count("\n") == 1


def test_a_host_that_is_no_address_is_one_line():
    ran = run_main("serve", "--host", "no-such-host.invalid", "--port", "8124")
    assert ran.returncode == 2 and ran.stdout == "" and ran.stderr.count("\n") == 1
    assert "no-such-host.invalid" in ran.stderr and "127.0.0.1" in ran.stderr


def test_the_start_says_who_can_connect_in_both_languages():
    en = start_lines("127.0.0.1", 8000, ["--lang", "zh"], "en")
    assert "http://127.0.0.1:8000" in en[0] and "maskattn-tui --lang zh" in en[0]
    assert "no other machine" in en[1] and "Ctrl-C" in en[2]
    assert "no other machine" in start_lines("127.0.0.2", 8000, [], "en")[1]
    assert "other machines on the network" in start_lines("192.168.1.5", 8000, [], "en")[1]
    zh = start_lines("0.0.0.0", 9000, [], "zh")
    assert "网络上的其他机器也能打开" in zh[1] and ":9000" in zh[0]
    # a wildcard host is reached by this machine's name (the page's websocket address)
    wildcard = public_url("0.0.0.0", 9000)
    assert wildcard.endswith(":9000") and "0.0.0.0" not in wildcard
    assert public_url("::1", 80) == "http://[::1]:80"


def test_the_child_is_this_python_and_the_options_quoted():
    command = app_command(["--labels", "a b,c"])
    assert command.startswith(sys.executable) and "-m maskattn_tui --labels 'a b,c'" in command
