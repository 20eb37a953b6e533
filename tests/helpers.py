"""Helpers several test files share: running the command line as a user
would (in a child, or in this process when the process is not the point),
queueing keys the way the terminal driver does, reading a pane's whole
figure, building a causal mask."""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata

EXE = [sys.executable, "-m", "maskattn_tui"]

#: Locale variables: a test that sets its own language drops these first
#: (LC_ALL would win over a LANG it sets).
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LC_CTYPE")


def run_cli(*argv: str, env: dict[str, str] | None = None, drop: tuple[str, ...] = (), **kwargs):
    """`python -m maskattn_tui ARGV` in a subprocess: text output captured
    (unless `kwargs` say otherwise), the environment this one's without the
    names in `drop`, plus `env`."""
    base = {k: v for k, v in os.environ.items() if k not in drop}
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("timeout", 120)
    return subprocess.run([*EXE, *argv], text=True, env={**base, **(env or {})}, **kwargs)


class Ran:
    """What `run_main` saw: the exit code and the two streams' text, named
    as subprocess.CompletedProcess names them."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_main(*argv: str, env: dict[str, str] | None = None, drop: tuple[str, ...] = (),
             encoding: str = "utf-8") -> Ran:
    """`main(ARGV)` in this process, as `run_cli` runs it in a child, for a
    test about what a command says rather than about the process (exit at
    a closed pipe, a terminal, what gets imported: those keep `run_cli`).
    The environment is this one's without `drop`, plus `env`, for the
    call only; stdout and stderr are pipes in `encoding` that are no
    terminal. A child costs 0.2-0.5 s of CPU to start; this, none."""
    import contextlib
    import io

    from maskattn_tui.cli import main

    saved = dict(os.environ)
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, newline="")
    err = io.TextIOWrapper(io.BytesIO(), encoding=encoding, newline="")
    try:
        for name in drop:
            os.environ.pop(name, None)
        os.environ.update(env or {})
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse's --help and --version
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    texts = []
    for stream in (out, err):
        stream.flush()
        texts.append(stream.buffer.getvalue().decode(encoding, errors="replace"))
    return Ran(code, *texts)


def send_key(app, key: str) -> None:
    """Queue a key event as the driver would, without waiting for the app
    (pilot.press idles ~40 ms a key, too slow for hundreds). The key is
    named as Textual's pilot names it: "-" is "minus", "?" "question_mark"."""
    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


def text_of(view) -> str:
    """A pane's whole figure as text, every line (not only those in view)."""
    figure = view.figure
    return "\n".join("".join(s.text for s in figure.full(y)) for y in range(figure.height))


def causal(rows: int, keys: int):
    """The bottom-right causal mask (True = attend): the last query sees every key."""
    import numpy as np  # only the mask tests need it

    return np.tril(np.ones((rows, keys), dtype=bool), keys - rows)


async def searched(pilot) -> None:
    """After typing into the command palette: until its search (a worker)
    has put its hits in the list, then until the screen has shown them."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def drained(pilot, rounds: int = 3) -> None:
    """Until the messages queued now, and those they post in turn (a
    widget's Changed to its parent, ...), have been handled: `rounds`
    passes of the pilot's wait for every widget's queue, no timed sleep."""
    for _ in range(rounds):
        await pilot.pause()


def seeded(max_examples: int):
    """Hypothesis settings for a test that used to loop over seeds: the same
    examples every run (derandomize: CI and a laptop agree), no example
    database written into the checkout, no deadline (a loaded machine)."""
    from hypothesis import settings

    return settings(max_examples=max_examples, derandomize=True, database=None, deadline=None)


#: A visibility table's row as the line blocks draw it: the selection and
#: focus marks, the label (a query, or an experiment's "row 0 as pos 0"),
#: PAD when the query sits on a PAD position, the rule, then the cells.
_TABLE_ROW = r"^[▶> ][●* ] (q\d+|row \d+ as pos \d+)(?: PAD)?\s*[│|](.*)$"
_CELL = r"(✓|\+|F|P|FP)!?"


def grid_rows(text: str) -> list[tuple[str, list[str]]]:
    """The rows of the visibility tables drawn in `text`, in order: (label,
    cells); a line that looks like a row but holds other things is not one."""
    import re

    out = []
    for line in text.splitlines():
        m = re.match(_TABLE_ROW, line)
        cells = m.group(2).split() if m else []
        if cells and all(re.fullmatch(_CELL, c) for c in cells):
            out.append((m.group(1), cells))
    return out


# -- a user's steps in the app -------------------------------------------------------


def recorded(app) -> list[str]:
    """The messages of app.notify, recorded (and still shown)."""
    seen: list[str] = []
    notify = app.notify

    def record(message: str, **kwargs) -> None:
        seen.append(message)
        notify(message, **kwargs)

    app.notify = record  # type: ignore[method-assign]
    return seen


async def type_into(pilot, widget_id: str, text: str, submit: bool = True) -> None:
    """Into the text box `widget_id`: emptied, `text` typed, Enter unless not `submit`."""
    from textual.widgets import Input

    box = pilot.app.query_one(f"#{widget_id}", Input)
    box.focus()
    await pilot.pause()
    box.value = ""
    await pilot.press(*text)
    if submit:
        await pilot.press("enter")
    await pilot.pause()


def problem_text(app) -> str:
    """The explore panel's refusal line."""
    from textual.widgets import Static

    return str(app.query_one("#x-problem", Static).render())


async def _path_dialog(pilot, key: str, path: str) -> None:
    from textual.widgets import Input

    from maskattn_tui.tui.scenario_dialogs import PathDialog

    await pilot.press(key)
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, PathDialog)
    dialog.query_one("#path", Input).value = path
    await pilot.press("enter")
    await pilot.pause()


async def save_to(pilot, path: str) -> None:
    """s, the path typed into the dialog, Enter."""
    await _path_dialog(pilot, "s", path)


async def open_file(pilot, path: str) -> None:
    """o, the path typed into the dialog, Enter (and a mask read in its
    thread, and shown)."""
    await _path_dialog(pilot, "o", path)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot, condition, what: str, limit: float = 30.0) -> None:
    """Until `condition()` holds, looked at between short pauses (the app's
    timers run meanwhile); `limit` seconds only bound a hang, they are not
    the wait, so a loaded machine is slower, not failing."""
    import time

    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < limit, f"not {what} after {limit} s"
        await pilot.pause(0.05)


def doctor_refused(capsys, *argv) -> str:
    """The one stderr line of `maskattn-tui doctor ARGV` (exit 2, nothing on
    stdout, no warning raised on the way)."""
    import warnings

    from maskattn_tui.cli import main

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code = main(["doctor", *map(str, argv)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
    assert not seen, [str(w.message) for w in seen]
    assert "Traceback" not in err
    return err


def tiny_config(cls=None, impl: str = "sdpa", **extra):
    """A one-layer transformers config small enough to build masks offline
    (LlamaConfig unless `cls`), with its attention implementation set."""
    if cls is None:
        from transformers import LlamaConfig as cls
    c = cls(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
            num_key_value_heads=2, vocab_size=100, **extra)
    c._attn_implementation = impl
    return c


# -- explore configurations with a value set by hand ---------------------------------


def with_v(config, key: int, value: float):
    """`config` with V at key position `key` set to `value` (e.g. 9999)."""
    return config.replace(v_override=(*config.v_override, (key, value)))


def with_score(config, row: int, key: int, score: float):
    """`config` with the scaled score of query row `row` for `key` set directly."""
    return config.replace(score_override=(*config.score_override, (row, key, score)))
