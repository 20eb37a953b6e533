"""A green run ends clean: no KeyboardInterrupt traceback on stderr after
"N passed". xdist reports a worker finished at its session's end; the
controller then ends the worker's gateway, and execnet gives whatever the
worker still runs 5 s before it sends the worker a SIGINT. pytest's closing
collection (its unraisable-exception cleanup) ran after that report and,
over a worker's heap on busy cores, could take longer: conftest.py's
pytest_sessionfinish collects before the report instead. Here a finalizer
that sleeps 6 s stands for a collection that takes that long."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SLOW = '''
import time


class Slow:
    def __del__(self):
        time.sleep(6)


def test_leaves_a_cycle_for_the_closing_collection():
    a = Slow()
    a.me = a
'''


@pytest.mark.slow
def test_a_green_run_on_workers_ends_without_a_keyboard_interrupt(tmp_path):
    (tmp_path / "test_slow_end.py").write_text(SLOW)
    here = Path(__file__).parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here.parent / "src"), str(here)])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-n", "2",
                           "-q", "test_slow_end.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert "KeyboardInterrupt" not in done.stderr + done.stdout, done.stderr
