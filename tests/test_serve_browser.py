"""`maskattn-tui serve` in a real browser: the server started as a user
starts it, the page opened in headless Chromium, the app's first screen
waited for, → pressed, step 2's caption and numbers read from what the app
sent to the page, and a PNG of the page kept for a person to look at.
Bounded: every wait has a limit, the server is stopped by Ctrl-C (SIGINT)."""

from __future__ import annotations

import math
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from browser import RECORD_WEBSOCKET, chromium, terminal_text

pytest.importorskip("textual_serve")
SRC = str(Path(__file__).resolve().parent.parent / "src")
#: Where the PNG of the page is kept (looked at by a person; not committed).
SHOT = Path(os.environ.get("MASKATTN_SHOTS", "/tmp")) / "maskattn-serve-step2.png"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(condition, what: str, limit: float):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"waited {limit:.0f} s for {what}")


def _step2_numbers() -> tuple[str, str, str]:
    """Step 2 of F12 worked by hand: q1 = [0, 1] over k0 = [1, 0], k1 = [0, 1]
    (k2 is its future), scores q·k/√2, softmax, V = 10, 20."""
    scores = [0.0, 1 / math.sqrt(2)]
    total = sum(math.exp(s) for s in scores)
    p0, p1 = (math.exp(s) / total for s in scores)
    return f"{p0:.4f}", f"{p1:.4f}", f"{p0 * 10 + p1 * 20:.4f}"


@pytest.mark.parametrize("lang,caption,stop_first", [
    ("en", "Query at position 1", False),
    ("zh", "位置 1 的查询", True),  # Ctrl-C while the visitor is still connected
])
def test_serve_walkthrough_in_chromium(lang, caption, stop_first):
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": SRC, "LANG": "C.UTF-8"}
    server = subprocess.Popen([sys.executable, "-m", "maskattn_tui", "serve", "--port", str(port), "--lang", lang,
                               "--", "--lang", lang], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)  # its app processes in its group
    browser = None
    try:
        url = f"http://127.0.0.1:{port}/"

        def up():
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0
        _wait(lambda: up() or server.poll() is not None, "the server to listen", 30)
        assert server.poll() is None, server.communicate()
        browser = chromium()
        browser.set_page_load_timeout(30)
        browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_WEBSOCKET})
        browser.get(url)

        def shown() -> str:
            return terminal_text("".join(browser.execute_script("return window.__received || []")))
        _wait(lambda: "1 / 5" in shown(), "the app's first screen (1 / 5)", 60)
        from selenium.webdriver.common.keys import Keys

        from selenium.webdriver.common.by import By

        browser.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea").send_keys(Keys.ARROW_RIGHT)
        _wait(lambda: "2 / 5" in shown(), "step 2 after →", 30)
        p0, p1, output = _step2_numbers()
        _wait(lambda: all(x in shown() for x in (caption, p0, p1, output)), f"step 2's caption and {p0} {p1}", 15)
        time.sleep(0.5)  # the last frame painted
        assert browser.get_screenshot_as_file(str(SHOT.with_stem(f"{SHOT.stem}-{lang}")))
    finally:
        if browser is not None and not stop_first:
            browser.quit()
        server.send_signal(signal.SIGINT)  # Ctrl-C: the server stops cleanly
        try:
            out, err = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)  # the server and the visitors' apps it started
            server.communicate()
            raise
        finally:
            if browser is not None and stop_first:
                browser.quit()
    assert server.returncode == 0, err
    assert f"127.0.0.1:{port}" in out and ("only" in out or "仅" in out)
    assert "Traceback" not in err
