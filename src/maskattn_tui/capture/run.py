"""`maskattn-tui capture -o DIR -- python script.py ARGS`: the script run as
`python` would run it (runpy: sys.argv with its own `--`, sys.path[0], an
absolute `__file__`, `__main__`), inside capture. The folder is made,
checked and held before the script starts (one line and exit 2 if it
cannot be), by its absolute path (the script may chdir). The script's exit
status is the command's and the manifest's (KeyboardInterrupt: 130); an
exception it raises is printed as Python prints it (exit 1), through
sys.excepthook and without capture's frames, and named in the manifest. Python
children it starts (multiprocessing spawn, subprocess) find
child/sitecustomize.py on PYTHONPATH and write their own calls files into
the same folder; forked children (DataLoader workers) do so through
os.register_at_fork."""

from __future__ import annotations

import os
import runpy
import sys
import traceback
import zipfile

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t

#: Options of `python` accepted before the script (they change nothing here).
_IGNORED = ("-u", "-B", "-O", "-OO", "-s", "-E", "-I")
CHILD_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child")
ENV_DIR = "MASKATTN_CAPTURE_DIR"
ENV_WEIGHTS = "MASKATTN_CAPTURE_WEIGHTS"


def parse_command(argv: list[str]) -> tuple[str, str, list[str]]:
    """("path" | "module", target, sys.argv for it) from `python ... ARGS`;
    only the `--` that ends capture's own options is dropped."""
    args = list(argv[1:]) if argv[:1] == ["--"] else list(argv)
    if not args:
        raise MaskattnError("capture_no_command")
    program = os.path.basename(args[0])
    if not program.startswith("python"):
        raise MaskattnError("capture_not_python", program=args[0])
    rest = args[1:]
    while rest and rest[0] in _IGNORED:
        rest = rest[1:]
    if rest[:1] == ["-m"] and len(rest) > 1:
        return "module", rest[1], [rest[1], *rest[2:]]
    if not rest or rest[0].startswith("-"):
        raise MaskattnError("capture_no_command")
    if not os.path.isfile(rest[0]):
        raise MaskattnError("capture_no_script", script=rest[0])
    return "path", rest[0], rest


def run(folder: str, argv: list[str], lang: str, weights: bool = False) -> int:
    kind, target, script_argv = parse_command(argv)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise MaskattnError("capture_out_file", folder=folder)
    try:
        import torch  # noqa: F401
    except ImportError:
        raise MaskattnError("capture_no_torch") from None
    from maskattn_tui.capture.session import Capture

    # sys.path[0] as python sets it: the script's real folder, or (-m) the current one
    first = os.path.dirname(os.path.realpath(target)) if kind == "path" else os.getcwd()
    if kind == "module" and not _module_found(target, first):
        raise MaskattnError("capture_no_module", module=target)
    cap = Capture(folder, command=list(argv[1:] if argv[:1] == ["--"] else argv), weights=weights)
    cap.open()  # an unusable or busy folder: one line, exit 2, the script not started
    environ = dict(os.environ)
    saved = sys.argv, list(sys.path)
    _children_capture(cap.dir, weights)
    sys.argv = script_argv
    sys.path[0:0] = [first]
    failure = None
    try:
        with cap:
            code, failure = _run_script(kind, target)
            cap.exit_status = code % 256 if os.name == "posix" else code  # what the shell sees
            if failure is not None:
                cap.exception = "".join(traceback.format_exception_only(type(failure), failure)).strip()
            _ignore_interrupts()  # a second Ctrl-C must not cut the manifest
    finally:
        sys.argv, sys.path[:] = saved
        os.environ.clear()
        os.environ.update(environ)
        _restore_interrupts()
    if failure is not None:
        _print_error(failure)
    from maskattn_tui.capture.findings import primary

    calls = primary(cap.calls)
    masks = (cap.document or {}).get("masks", {})
    sys.stderr.write(t("capture.wrote", lang, calls=len(calls), masks=len(masks), folder=folder) + "\n")
    return code


def _module_found(target: str, first: str) -> bool:
    import importlib.util

    sys.path.insert(0, first)
    try:
        return importlib.util.find_spec(target) is not None
    except (ImportError, ValueError):
        return False
    finally:
        sys.path.remove(first)


def _run_script(kind: str, target: str) -> tuple[int, BaseException | None]:
    """The script's exit status and the exception it ended with (None when
    it returned or called sys.exit)."""
    try:
        if kind == "module":
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        elif target.endswith(".pyc") or zipfile.is_zipfile(target):
            runpy.run_path(target, run_name="__main__")
        else:
            _run_source(target)
    except SystemExit as exc:
        return _exit_code(exc), None
    except KeyboardInterrupt as exc:
        return 130, exc  # python dies of SIGINT: the shell sees 128 + 2
    except BaseException as exc:  # noqa: BLE001 - the script's own error, shown as Python shows it
        return 1, exc
    return 0, None


def _run_source(target: str) -> None:
    """A source file as `python target` runs it: sys.argv[0] as typed, an
    absolute (not resolved) __file__, the builtins module, the script as
    sys.modules["__main__"] while it runs (pickle, spawn)."""
    import builtins
    import types

    path = target if os.path.isabs(target) else os.path.join(os.getcwd(), target)
    with open(path, "rb") as file:
        source = file.read()
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __builtins__=builtins, __cached__=None, __loader__=None, __spec__=None,
                         __package__=None)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(compile(source, path, "exec", dont_inherit=True), main.__dict__)
    finally:
        sys.modules["__main__"] = saved


_INTERRUPT: list = []


def _ignore_interrupts() -> None:
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        _INTERRUPT.append(signal.signal(signal.SIGINT, signal.SIG_IGN))


def _restore_interrupts() -> None:
    import signal

    while _INTERRUPT:
        signal.signal(signal.SIGINT, _INTERRUPT.pop())


def _print_error(exc: BaseException) -> None:
    """As python reports an uncaught exception: sys.excepthook, with the
    traceback from the script's first frame on (not runpy's or ours; none
    at all for a SyntaxError in the script itself)."""
    tb = exc.__traceback__
    while tb is not None and _machinery(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    exc.__traceback__ = tb
    try:
        sys.excepthook(type(exc), exc, tb)
    except Exception:  # noqa: BLE001 - a broken hook: python's own printing
        traceback.print_exception(type(exc), exc, tb)


def _machinery(filename: str) -> bool:
    return filename == __file__ or "runpy" in filename


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    sys.stderr.write(f"{exc.code}\n")  # as Python does for sys.exit("message")
    return 1


def _children_capture(folder: str, weights: bool) -> None:
    """Python children started by the script capture into the same folder."""
    os.environ[ENV_DIR] = os.path.abspath(folder)
    os.environ[ENV_WEIGHTS] = "1" if weights else ""
    paths = os.environ.get("PYTHONPATH", "")
    if CHILD_DIR not in paths.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (CHILD_DIR, paths) if p)
