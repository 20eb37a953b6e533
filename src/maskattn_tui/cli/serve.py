"""`maskattn-tui serve`: the app in a browser, with textual-serve (the
`serve` extra). Every visitor gets their own app process, started as
`python -m maskattn_tui APP-OPTIONS` and driven over a websocket by
Textual's web driver; no shell is offered. Bound to 127.0.0.1 unless
--host says otherwise, and the start says which.

The app options are checked here first (the child's one-line error would
only reach the browser as "Session ended")."""

from __future__ import annotations

import shlex
import socket
import sys

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t

#: Hosts that accept connections from other machines (every interface).
WILDCARDS = ("0.0.0.0", "::", "")
LOCAL = ("127.0.0.1", "localhost", "::1")


class ServeError(MaskattnError):
    """serve cannot start: one line (data/strings/eco.json), exit 2."""

    def message(self, lang: str) -> str:
        return t(f"eco.serve.{self.key}", lang, **self.params)


def app_command(options: list[str]) -> str:
    """The child's command line: this Python, this package, the options
    (quoted: textual-serve runs it through /bin/sh)."""
    return shlex.join([sys.executable, "-m", "maskattn_tui", *options])


def _outward_address() -> str:
    """This machine's address on its default route (a UDP socket's own end
    once connected: nothing is sent), else its name."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
    except OSError:
        return socket.getfqdn()


def public_url(host: str, port: int) -> str:
    """Where a browser reaches the server (the page's websocket address is
    built from it): a wildcard host is reached at this machine's address."""
    name = _outward_address() if host in WILDCARDS else host
    name = f"[{name}]" if ":" in name else name
    return f"http://{name}:{port}"


def start_lines(host: str, port: int, options: list[str], lang: str) -> list[str]:
    url = public_url(host, port)
    where = "local" if host in LOCAL else "network"
    what = " ".join(["maskattn-tui", *map(shlex.quote, options)])
    return [t("eco.serve.start", lang, url=url, command=what),
            t(f"eco.serve.{where}", lang, host=host), t("eco.serve.stop", lang)]


def serve(host: str, port: int, options: list[str], lang: str) -> int:
    try:
        from textual_serve.server import Server
    except ImportError:
        raise ServeError("no_extra") from None
    import logging

    class Quiet(Server):
        """textual-serve's server, its logo and banner replaced by our lines."""

        async def on_startup(self, app) -> None:
            for line in start_lines(host, port, options, lang):
                sys.stdout.write(line + "\n")
            sys.stdout.flush()

        def initialize_logging(self) -> None:  # warnings only: no line per request
            logging.basicConfig(level="WARNING", format="%(message)s")

    try:  # a host that is no address of this machine: one line before anything is said
        socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ServeError("bad_host", host=host, reason=exc.strerror or exc) from None
    server = Quiet(app_command(options), host=host, port=port, title="maskattn-tui",
                   public_url=public_url(host, port))
    import asyncio

    asyncio.set_event_loop(asyncio.new_event_loop())  # Server.serve takes the current loop: a fresh one
    try:
        server.serve()
    except OSError as exc:  # the port is taken, the host is not this machine's
        raise ServeError("cannot_bind", host=host, port=port, reason=exc.strerror or exc) from None
    sys.stdout.write(t("eco.serve.stopped", lang) + "\n")
    return 0
