"""SIGTERM, SIGHUP and SIGQUIT end the app with the terminal restored, as q
and SIGINT do: the app runs in a real pseudo-terminal, gets the signal,
and must have written the restore sequences (alternate screen left, cursor
shown, mouse reporting off) and put the tty back in canonical mode."""

from __future__ import annotations

import os
import select
import signal
import sys
import termios
import time

import pytest

pty = pytest.importorskip("pty")

ENTER_ALT_SCREEN = b"\x1b[?1049h"
LEAVE_ALT_SCREEN = b"\x1b[?1049l"
SHOW_CURSOR = b"\x1b[?25h"
MOUSE_OFF = b"\x1b[?1000l"
FIRST_PAINT = b"\x1b[1;1H"


def read_until_quiet(fd: int, until: tuple[bytes, ...], quiet: float = 0.5, limit: float = 30.0) -> bytes:
    """What the child writes: the first byte and every sequence of `until`
    may take up to `limit` seconds (a loaded machine imports slowly); after
    them, until nothing more comes for `quiet` seconds."""
    chunks, start = [], time.monotonic()
    while time.monotonic() - start < limit:
        seen = b"".join(chunks)
        waiting = not seen or any(marker not in seen for marker in until)
        wait = limit - (time.monotonic() - start) if waiting else quiet
        ready, _, _ = select.select([fd], [], [], max(0.0, wait))
        if not ready:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the child has closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT], ids=lambda s: s.name)
def test_a_signal_restores_the_terminal(sig):
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app, in the pty
        env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL")}
        env.update(TERM="xterm-256color", LANG="C.UTF-8", COLUMNS="80", LINES="24")
        os.execvpe(sys.executable, [sys.executable, "-m", "maskattn_tui", "--lang", "en"], env)
    try:
        # The first paint (cursor home, then text) comes after on_mount, which
        # installs the signal handlers.
        started = read_until_quiet(fd, until=(ENTER_ALT_SCREEN, FIRST_PAINT))
        assert ENTER_ALT_SCREEN in started and FIRST_PAINT in started  # the app is up, in the alternate screen
        assert not termios.tcgetattr(fd)[3] & termios.ICANON  # and the tty is raw
        os.kill(pid, sig)
        ending = read_until_quiet(fd, until=(LEAVE_ALT_SCREEN, SHOW_CURSOR, MOUSE_OFF))
        _, status = os.waitpid(pid, 0)
        assert LEAVE_ALT_SCREEN in ending and SHOW_CURSOR in ending and MOUSE_OFF in ending
        assert os.waitstatus_to_exitcode(status) == 128 + sig
        attrs = termios.tcgetattr(fd)
        assert attrs[3] & termios.ICANON and attrs[3] & termios.ECHO  # cooked again
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)


def test_a_closed_terminal_ends_the_app():
    """The pty's other end closes (tmux kill-session, a benchmark closing its
    pty) while the app runs under a shell that ignores SIGHUP: only that
    shell, the session leader, is told; the app reads end-of-file and must
    exit rather than select and read again at once forever."""
    pid, fd = pty.fork()
    if pid == 0:  # the session leader: ignores SIGHUP, runs the app and reports how it ended
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL")}
        env.update(TERM="xterm-256color", LANG="C.UTF-8", COLUMNS="80", LINES="24")
        app = os.fork()
        if app == 0:
            os.execvpe(sys.executable, [sys.executable, "-m", "maskattn_tui", "--lang", "en"], env)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            done, status = os.waitpid(app, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                os._exit(10 if code == 128 + signal.SIGHUP else 11)
            time.sleep(0.1)
        os.kill(app, signal.SIGKILL)  # still running 15 s after the hangup: spinning
        os._exit(12)
    try:
        started = read_until_quiet(fd, until=(ENTER_ALT_SCREEN, FIRST_PAINT))
        assert ENTER_ALT_SCREEN in started and FIRST_PAINT in started
        os.close(fd)  # the hangup
        fd = -1
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 10  # the app ended, with 128 + SIGHUP
    finally:
        if fd >= 0:
            os.close(fd)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
