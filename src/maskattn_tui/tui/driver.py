"""Textual's Linux driver, ending the app when its terminal is gone.

When the pty's other end closes (tmux kill-session, a benchmark that closes
its pty) only the session leader gets SIGHUP; an app started under a shell
that ignores it reads end-of-file from then on. Textual's input thread
treats an empty read as "stdin is piped" and selects again at once, so the
app never exits and spins at half a core. Here an empty read ends the app,
with 128 + SIGHUP as the hangup signal's handler gives."""

from __future__ import annotations

import os
import selectors
import signal
import sys
from codecs import getincrementaldecoder

from textual import constants

#: Signals that end the app with the terminal restored (SIGINT is Textual's).
EXIT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name))
HANGUP_EXIT = 128 + int(getattr(signal, "SIGHUP", 1))


def hangup_driver():
    """The driver class for the app, or None for Textual's own choice
    (Windows, or a driver named in TEXTUAL_DRIVER)."""
    if sys.platform == "win32" or constants.DRIVER is not None:
        return None
    from textual._loop import loop_last
    from textual.drivers.linux_driver import LinuxDriver
    from textual._xterm_parser import XTermParser

    class HangupDriver(LinuxDriver):
        def run_input_thread(self) -> None:
            # Textual 8.2.8's loop, but an empty read is the end of input.
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            parser = XTermParser(self._debug)
            decode = getincrementaldecoder("utf-8")().decode

            def read_events(events, final: bool = False) -> bool:
                """Feed what came; False once stdin is at its end or gone."""
                for last, (_key, mask) in loop_last(events):
                    if mask & selectors.EVENT_READ:
                        try:
                            data = decode(os.read(self.fileno, 4096), final=final and last)
                        except OSError:  # EIO: a hung-up terminal
                            return False
                        if not data:
                            return False
                        for event in parser.feed(data):
                            self.process_message(event)
                for event in parser.tick():
                    self.process_message(event)
                return True

            try:
                while not self.exit_event.is_set():
                    if not read_events(selector.select(0.1)):
                        self._loop.call_soon_threadsafe(self._app.exit, None, HANGUP_EXIT)
                        return
                selector.unregister(self.fileno)
                read_events(selector.select(0.1), final=True)
            finally:
                selector.close()

    return HangupDriver
