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


def only_here(host: str) -> bool:
    """Does `host` take connections from this machine only (a loopback address)?"""
    import ipaddress

    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def start_lines(host: str, port: int, options: list[str], lang: str) -> list[str]:
    url = public_url(host, port)
    where = "local" if only_here(host) else "network"
    what = " ".join(["maskattn-tui", *map(shlex.quote, options)])
    return [t("eco.serve.start", lang, url=url, command=what),
            t(f"eco.serve.{where}", lang, host=host), t("eco.serve.stop", lang)]


def run(args, lang: str, app_start) -> int:
    """`serve`: the app options after -- parsed and checked as the app
    would (`app_start`: commands' reading of the configuration and the
    mask), the settings file's theme and keys checked, then serve."""
    import os

    from maskattn_tui.cli.config_file import looks
    from maskattn_tui.cli.parser import UsageError, build_parser, settle_options

    options = list(args.app_options[1:] if args.app_options[:1] == ["--"] else args.app_options)
    parser = build_parser()
    app_args = parser.parse_args(options)
    if app_args.command is not None:
        raise ServeError("command", command=app_args.command)
    settle_options(app_args, parser)
    if app_args.exit_at_end and not app_args.play:
        raise UsageError(t("cli.exit_needs_play", lang))
    if getattr(args, "config_file", None) and app_args.config_file is None:  # the visitors' apps read it too
        options = ["--config-file", os.path.abspath(args.config_file), *options]
    looks(args)  # a bad theme or key: refused now, not in each visitor's browser
    app_start(app_args, lang)  # the configuration and the mask read as the app will (one line if bad)
    return serve(args.host, args.port, options, lang)


def serve(host: str, port: int, options: list[str], lang: str) -> int:
    try:
        from textual_serve import server as served
    except ImportError:
        raise ServeError("no_extra") from None
    import asyncio
    import logging

    live: set = set()  # the visitors' services now running

    class Reaped(served.AppService):
        """A visitor's app process waited for when they leave (textual-serve
        1.1.3 leaves it to the garbage collector, which prints a traceback
        when that happens after Ctrl-C has closed the loop); and known, so
        that Ctrl-C can close their pages at once (else the server waits
        for every browser to leave, up to aiohttp's 60 s)."""

        async def start(self, width: int, height: int) -> None:
            live.add(self)
            await super().start(width, height)

        async def stop(self) -> None:
            live.discard(self)
            await super().stop()
            process = self._process
            if process is not None and process.returncode is None:
                try:
                    await asyncio.wait_for(process.wait(), 5)
                except asyncio.TimeoutError:
                    process.kill()
                    await process.wait()

    served.AppService = Reaped  # the name handle_websocket builds each visitor's service with
    Server = served.Server

    class Quiet(Server):
        """textual-serve's server, its logo and banner replaced by our lines."""

        async def on_startup(self, app) -> None:
            for line in start_lines(host, port, options, lang):
                sys.stdout.write(line + "\n")
            sys.stdout.flush()

        async def on_shutdown(self, app) -> None:  # Ctrl-C: each page told the session ended
            for service in list(live):
                await service.remote_close()

        def initialize_logging(self) -> None:  # warnings only: no line per request
            logging.basicConfig(level="WARNING", format="%(message)s")

    try:  # a host that is no address of this machine: one line before anything is said
        socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ServeError("bad_host", host=host, reason=exc.strerror or exc) from None
    server = Quiet(app_command(options), host=host, port=port, title="maskattn-tui",
                   public_url=public_url(host, port))
    asyncio.set_event_loop(asyncio.new_event_loop())  # Server.serve takes the current loop: a fresh one
    try:
        server.serve()
    except OSError as exc:  # the port is taken, the host is not this machine's
        raise ServeError("cannot_bind", host=host, port=port, reason=exc.strerror or exc) from None
    sys.stdout.write(t("eco.serve.stopped", lang) + "\n")
    return 0
