"""`maskattn-tui capture -o DIR -- python script.py ARGS`: the script run as
`python` would run it (runpy: sys.argv, sys.path[0], `__main__`), inside
capture. Its exit status is the command's; an exception it raises is
printed as Python prints it (exit 1) and named in the manifest. Python
children it starts (multiprocessing spawn, subprocess) find
child/sitecustomize.py on PYTHONPATH and write their own calls files into
the same folder; forked children (DataLoader workers) do so through
os.register_at_fork."""

from __future__ import annotations

import os
import runpy
import sys
import traceback

from maskattn_tui.errors import MaskattnError
from maskattn_tui.i18n import t

#: Options of `python` accepted before the script (they change nothing here).
_IGNORED = ("-u", "-B", "-O", "-OO", "-s", "-E", "-I")
CHILD_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child")
ENV_DIR = "MASKATTN_CAPTURE_DIR"
ENV_WEIGHTS = "MASKATTN_CAPTURE_WEIGHTS"


def parse_command(argv: list[str]) -> tuple[str, str, list[str]]:
    """("path" | "module", target, sys.argv for it) from `python ... ARGS`."""
    args = [a for a in argv if a != "--"] if argv[:1] == ["--"] else list(argv)
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

    environ = dict(os.environ)
    _children_capture(folder, weights)
    saved = sys.argv, list(sys.path)
    sys.argv = script_argv
    # sys.path[0] as python sets it: the script's folder, or (-m) the current one
    sys.path[0:0] = [os.path.dirname(os.path.abspath(target)) if kind == "path" else os.getcwd()]
    if kind == "module":
        import importlib.util

        try:
            found = importlib.util.find_spec(target)
        except (ImportError, ValueError):
            found = None
        if found is None:
            sys.argv, sys.path[:] = saved
            os.environ.clear()
            os.environ.update(environ)
            raise MaskattnError("capture_no_module", module=target)
    code = 0
    cap = Capture(folder, command=list(argv if argv[:1] != ["--"] else argv[1:]), weights=weights)
    try:
        with cap:
            try:
                if kind == "module":
                    runpy.run_module(target, run_name="__main__", alter_sys=True)
                else:
                    runpy.run_path(target, run_name="__main__")
            except SystemExit as exc:
                code = _exit_code(exc)
                cap.exit_status = code
                raise
            except BaseException:
                code = 1
                cap.exit_status = code
                raise
            cap.exit_status = 0
    except SystemExit:
        pass
    except KeyboardInterrupt:
        code = 130
    except BaseException as exc:  # the script's own error, shown as Python shows it
        _print_error(exc)
    finally:
        sys.argv, sys.path[:] = saved
        os.environ.clear()
        os.environ.update(environ)
    from maskattn_tui.capture.findings import primary

    calls = primary(cap.calls)
    masks = (cap.document or {}).get("masks", {})
    sys.stderr.write(t("capture.wrote", lang, calls=len(calls), masks=len(masks), folder=folder) + "\n")
    return code


def _print_error(exc: BaseException) -> None:
    """The traceback from the script's first frame on (not runpy's or ours)."""
    tb = exc.__traceback__
    while tb is not None and _machinery(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb or exc.__traceback__)


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
