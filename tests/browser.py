"""Headless Chromium for the browser tests (Debian's `chromium` and
`chromium-driver`, driven by selenium): found, or the test is skipped with
the reason; under CI=true (.ci/run installs them) a missing browser fails.
Also: the text a textual-serve page received from its app."""

from __future__ import annotations

import os
import re
import shutil

import pytest

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
DRIVER = "chromedriver"

#: Run in the page before its own scripts: every binary websocket message
#: (the app's terminal output) decoded and kept, for the test to read.
RECORD_WEBSOCKET = """
window.__received = [];
const Original = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const socket = protocols === undefined ? new Original(url) : new Original(url, protocols);
  const decoder = new TextDecoder("utf-8");
  socket.addEventListener("message", (event) => {
    if (typeof event.data !== "string") {
      window.__received.push(decoder.decode(new Uint8Array(event.data), {stream: true}));
    }
  });
  return socket;
};
window.WebSocket.prototype = Original.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""


def missing(reason: str) -> None:
    if CI:
        pytest.fail(f"{reason} under CI=true (.ci/run installs chromium and chromium-driver)")
    pytest.skip(reason)


def chromium(width: int = 1280, height: int = 900):
    """A headless Chromium (selenium's webdriver), or skip / fail."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing("selenium is not installed (pip install -e '.[test]')")
    binary = next((shutil.which(name) for name in CHROMIUM if shutil.which(name)), None)
    driver = shutil.which(DRIVER) or ("/usr/lib/chromium/chromedriver"
                                      if os.path.exists("/usr/lib/chromium/chromedriver") else None)
    if binary is None or driver is None:
        missing("no headless browser here: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)


_CURSOR = re.compile(r"\x1b\[\d*(?:;\d*)?[Hf]")
_ESCAPE = re.compile(r"\x1b(?:\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])")


def terminal_text(stream: str) -> str:
    """Terminal output as text: a cursor move starts a new line, every other
    escape sequence (colours, modes) is dropped."""
    return _ESCAPE.sub("", _CURSOR.sub("\n", stream))
