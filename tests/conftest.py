"""Shared test setup."""

from __future__ import annotations

import atexit
import gc
import inspect
import os
import time
from pathlib import Path

import pytest

#: The longest a snapshot waits for the app's readiness signal (a bound
#: against a hang, not the wait: a loaded machine is slower, not failing).
READY_TIMEOUT = 30.0


#: Under CI the test command installs torch and transformers: a test skipped
#: for want of a library is a missing install step there, so it fails.
_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if _CI and report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if "could not import" in reason or "No module named" in reason:
            report.outcome = "failed"
            report.longrepr = f"skipped for a missing library under CI=true: {reason}"


def pytest_collection_finish(session):
    # What collection made (the modules: torch, transformers, textual; the
    # parametrised cases) lives to the end: frozen, no full collection walks
    # it again, and a larger first threshold spares collections of the app's
    # many short-lived objects (a TUI test file 16 % less CPU, measured).
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)


def pytest_sessionfinish(session):
    # In a worker, the closing collection runs here, before xdist reports the
    # worker finished: once it has, the controller ends the worker's gateway
    # and execnet gives what is still running 5 s before it sends the worker
    # a SIGINT, whose KeyboardInterrupt traceback then ended green runs.
    # pytest's own collection (the unraisable-exception cleanup, after
    # pytest_unconfigure) came after the report: over a worker's heap it took
    # 2.7-3.4 s in a run of 8 TUI files on 3 workers, more on busy cores.
    # What it finds is reported as before; after the freeze, pytest's
    # collection walks only what is made from here on.
    if hasattr(session.config, "workerinput"):
        gc.collect()
        gc.freeze()


def pytest_xdist_auto_num_workers(config):
    """-n auto: one worker more than the cores this process may use. The
    app's tests wait on it part of their time, so a third worker keeps two
    cores busy (here: 194-202 s with 3 workers, 214 s with 2, 196 s with 4;
    docs/performance.md)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: a long random-key run (deselect locally with -m 'not slow'; CI runs it)")
    _one_closing_collection(config)
    _hypothesis_as_installed(config)
    # The run is over when atexit runs: what is still alive is frozen, so the
    # interpreter's closing collections do not walk a worker's heap again
    # (one worker's run of 4 files: last test to exit 3.8 s -> 1.2 s).
    atexit.register(gc.freeze)
    if not hasattr(config, "workerinput"):  # once, in the process that starts the workers
        _compile_package()
    else:
        _rewrite_share(config, int(config.workerinput["workerid"][2:]), int(config.workerinput["workercount"]))


def _one_closing_collection(config) -> None:
    """pytest looks for exceptions raised in finalizers with five full
    garbage collections as a process closes; over a worker's heap after a
    whole run each takes about a second, and the run waits for the last
    worker. One collection finds what a finalizer raises on anything
    garbage by then."""
    try:
        from _pytest.unraisableexception import gc_collect_iterations_key
    except ImportError:  # another pytest: its own number stands
        return
    config.stash[gc_collect_iterations_key] = 1


def _hypothesis_as_installed(config) -> None:
    """pytest marks every package that brings a pytest plugin for assertion
    rewriting; hypothesis is imported after that, by its tests, and being
    rewritten it is compiled again in each process (1.45 s CPU against
    0.13 s from its installed bytecode). Its asserts are its own invariants,
    not this suite's, so it is imported as installed."""
    try:
        from _pytest.assertion import rewrite

        config.stash[rewrite.assertstate_key].hook._must_rewrite.discard("hypothesis")
    except (ImportError, AttributeError, KeyError):  # another pytest, or no rewriting
        pass


def _rewrite_share(config, index: int, count: int) -> None:
    """This worker's share of the test modules, assertion-rewritten and
    cached before collection. Every worker collects every module, and where
    PYTHONDONTWRITEBYTECODE is set pytest rewrites each one again in each
    worker (4.5 s CPU a worker here); each rewriting a third and reading the
    others' cache does it once. A module not cached yet when a worker
    reaches it is simply rewritten there, as pytest always does."""
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        tail, read, make, write, dirs = (rewrite.PYC_TAIL, rewrite._read_pyc, rewrite._rewrite_test,
                                         rewrite._write_pyc, rewrite.try_makedirs)
    except (ImportError, AttributeError, KeyError):  # another pytest, or no rewriting: pytest's own stands
        return
    for fn in sorted(Path(__file__).parent.glob("test_*.py"))[index::count]:
        cache = rewrite.get_cache_dir(fn)
        pyc = cache / (fn.name[:-3] + tail)
        if read(fn, pyc) is not None or not dirs(cache):
            continue
        try:
            source_stat, co = make(fn, config)
        except (SyntaxError, OSError):  # reported by collection, as pytest always does
            continue
        write(state, co, source_stat, pyc)


def _compile_package() -> None:
    """Bytecode for the package and the shared helpers, written before any
    worker starts. Where PYTHONDONTWRITEBYTECODE is set (or a fresh clone),
    every worker and each of the ~300 command-line children the tests start
    would otherwise compile the same source again (a `print` child: 0.24 s
    CPU without bytecode, 0.16 s with)."""
    import compileall

    import maskattn_tui

    compileall.compile_dir(Path(maskattn_tui.__file__).parent, quiet=2)
    compileall.compile_file(Path(__file__).with_name("helpers.py"), quiet=2)


async def settled(pilot) -> None:
    """Until the app says its first screen is drawn (`app.ready`), then
    until nothing is pending: no timed sleep."""
    app = pilot.app
    start = time.monotonic()
    while not getattr(app, "ready", True):
        assert time.monotonic() - start < READY_TIMEOUT, f"the app not ready after {READY_TIMEOUT} s"
        await pilot.pause(0.01)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def steady_cursors(app) -> None:
    """A focused text box's cursor blinks on a timer: shown steadily, so a
    screenshot does not depend on when it was taken."""
    from textual.widgets import Input

    for screen in app.screen_stack:
        for box in screen.query(Input):
            box.cursor_blink = False


@pytest.fixture
def snap_compare(snap_compare):
    """pytest-textual-snapshot's snap_compare, but the screenshot shows the
    settled screen: it waits for the app's readiness signal before the
    keys and for the screen to settle after them. Nothing here is timed, so
    a "wait:N" entry in `press` is refused rather than silently slept."""

    def compare(app, *args, run_before=None, press=(), **kwargs):
        timed = [k for k in press if k.startswith("wait:")]
        assert not timed, f"{timed}: snapshots wait for the app to settle, not for a time"
        keys = list(press)

        async def settle(pilot):
            await settled(pilot)
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
                await settled(pilot)
            if keys:
                await pilot.press(*keys)
                await settled(pilot)
            steady_cursors(pilot.app)

        return snap_compare(app, *args, run_before=settle, **kwargs)

    return compare
