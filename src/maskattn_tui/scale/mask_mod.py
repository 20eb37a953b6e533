"""A user's FlexAttention mask_mod, named FILE.py:NAME on the command line.

The module is imported and run: it is the user's own code, executed
because they asked for it (`doctor FILE.py:NAME`, `--mask FILE.py:NAME`).
Nothing else is ever executed or unpickled (saved masks are read as data).

NAME(b, h, q_idx, kv_idx) is called on one tile at a time: q_idx a column
of query indices, kv_idx a row of key indices, broadcast to the tile. It
runs on numpy arrays when the function is plain arithmetic (5-7x faster
than torch on index bands), on torch tensors otherwise; whichever is used
is first checked against torch's own vmap evaluation (what create_mask
does) on probe tiles, so a function that means something else on numpy
(or under broadcasting) is evaluated the way torch evaluates it."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable

import numpy as np

from maskattn_tui.errors import MaskattnError

#: The edge of a probe tile (checked against torch's vmap).
PROBE = 64


#: The largest batch or head index a mask_mod is called with (FlexAttention's
#: B and H are sizes: int32 is room enough, and b + 1 stays an int64).
MAX_INDEX = (1 << 31) - 1


def split_spec(spec: str) -> tuple[str, str] | None:
    """("FILE.py", "NAME") for a FILE.py:NAME spec, else None; NAME may be
    an attribute path (`masks.py:Masks.causal`)."""
    path, sep, name = spec.rpartition(":")
    if not sep or not path.endswith(".py") or not all(part.isidentifier() for part in name.split(".")):
        return None
    return path, name


def is_spec(text: str | None) -> bool:
    return text is not None and split_spec(text) is not None


def load(spec: str) -> Callable:
    """Import FILE.py and return its callable NAME; MaskattnError (one
    line) when the file is missing, fails to import, or NAME is not there."""
    parts = split_spec(spec)
    if parts is None:
        raise MaskattnError("scale_spec", spec=spec)
    path, name = parts
    if not os.path.isfile(path):
        raise MaskattnError("scale_no_file", file=path)
    module_name = f"_maskattn_user_{abs(hash(os.path.abspath(path)))}"
    try:
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module  # dataclasses and pickling-free code look themselves up here
        loader_spec.loader.exec_module(module)
    except BaseException as e:  # the user's code: any failure is theirs, told in one line
        sys.modules.pop(module_name, None)
        if isinstance(e, KeyboardInterrupt):
            raise
        raise MaskattnError("scale_import", file=path, error=_one_line(e)) from None
    fn = module
    for part in name.split("."):  # an attribute path: each step looked up as Python would
        try:
            fn = getattr(fn, part)
        except Exception:  # noqa: BLE001 - a property of theirs may raise anything: not there
            raise MaskattnError("scale_no_name", file=path, name=name) from None
    if not callable(fn):
        raise MaskattnError("scale_not_callable", file=path, name=name)
    return fn


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def check_index(option: str, value: int | None) -> int:
    """--batch / --head for a mask_mod: the b or h it is called with."""
    value = value or 0
    if not 0 <= value <= MAX_INDEX:
        raise MaskattnError("scale_index", option=option, value=value, hi=MAX_INDEX)
    return value


@contextmanager
def users_code():
    """While the user's module runs: what it prints goes to stderr, so that
    stdout holds the report (and --json stays one JSON document)."""
    from contextlib import redirect_stdout

    with redirect_stdout(sys.stderr if sys.stderr is not None else None):
        yield


class _NotBool(TypeError):
    """What a torch evaluation returned, when it is not a bool tensor."""


def _failure(e: BaseException, name: str, q0: int, k0: int) -> MaskattnError:
    """The user's function failed on a tile: one line naming it. torch's
    vmap says it in words meant for vmap's callers ("set out_dims=", "file
    an issue"); a mask_mod's author gets what their function did."""
    where = {"name": name, "q0": q0, "k0": k0}
    if isinstance(e, SystemExit):
        return MaskattnError("scale_exit", code=repr(e.code), **where)
    text = str(e)
    if isinstance(e, _NotBool):
        return MaskattnError("scale_returns", got=str(e), **where)
    returned = re.search(r"must only return Tensors, got type <class '([^']+)'>", text)
    if returned:
        return MaskattnError("scale_returns", got=returned[1], **where)
    if "data-dependent control flow" in text or "calling .item() on a Tensor" in text:
        return MaskattnError("scale_control_flow", **where)
    return MaskattnError("scale_call", error=_one_line(e), **where)


@dataclass
class Evaluator:
    """Cells of NAME on tiles: `tile(q0, q1, k0, k1)` -> bool (q1-q0, k1-k0)."""

    fn: Callable
    name: str
    b: int = 0
    h: int = 0
    #: "numpy", "torch" (broadcast) or "vmap" (torch's create_mask way)
    engine: str = "numpy"

    def tile(self, q0: int, q1: int, k0: int, k1: int) -> np.ndarray:
        try:
            return self._run(self.engine, q0, q1, k0, k1)
        except (MaskattnError, KeyboardInterrupt):
            raise
        except BaseException as e:  # noqa: BLE001 - the user's function (sys.exit too), told in one line
            raise _failure(e, self.name, q0, k0) from None

    def _run(self, engine: str, q0: int, q1: int, k0: int, k1: int) -> np.ndarray:
        shape = (q1 - q0, k1 - k0)
        if engine == "numpy":
            out = self.fn(np.int64(self.b), np.int64(self.h), np.arange(q0, q1, dtype=np.int64)[:, None],
                          np.arange(k0, k1, dtype=np.int64)[None, :])
            if not isinstance(out, (np.ndarray, np.bool_, bool)):
                raise TypeError(f"not a numpy result: {type(out).__name__}")
            out = np.asarray(out)
            if out.dtype != np.bool_:
                raise TypeError(f"result dtype {out.dtype}")  # a trial only: torch's engines decide
            return np.broadcast_to(out, shape)
        import torch

        if engine == "torch":
            out = self.fn(torch.tensor(self.b), torch.tensor(self.h), torch.arange(q0, q1)[:, None],
                          torch.arange(k0, k1)[None, :])
        else:
            from torch.nn.attention.flex_attention import _vmap_for_bhqkv

            mod = _vmap_for_bhqkv(self.fn, prefix=())
            with torch.no_grad():
                out = mod(torch.tensor([self.b]), torch.tensor([self.h]), torch.arange(q0, q1),
                          torch.arange(k0, k1))[0, 0]
        if not isinstance(out, torch.Tensor) or out.dtype != torch.bool:
            raise _NotBool(_kind(out))
        return np.broadcast_to(out.numpy(), shape)


def _kind(out) -> str:
    dtype = getattr(out, "dtype", None)
    return f"{type(out).__name__} of {dtype}" if dtype is not None else type(out).__name__


@contextmanager
def one_thread(engine: str):
    """torch on one thread while tiles are evaluated: a tile's ops are a
    few million cells, too small for intra-op threads to pay (measured on
    2 shared cores: 9 ns a cell on one thread, 29 on two)."""
    if engine == "numpy":
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _parts(fn: Callable) -> tuple[str, tuple[Callable, ...]] | None:
    """("and" | "or", the mask_mods) of torch's and_masks / or_masks, else None."""
    kind = {"and_mask": "and", "or_mask": "or"}.get(getattr(fn, "__name__", ""))
    if kind is None or getattr(fn, "__module__", "") != "torch.nn.attention.flex_attention":
        return None
    names = fn.__code__.co_freevars
    if names != ("mask_mods",) or not fn.__closure__:
        return None
    mods = fn.__closure__[0].cell_contents
    return (kind, tuple(mods)) if isinstance(mods, tuple) and all(callable(m) for m in mods) else None


@dataclass
class Combined:
    """and_masks / or_masks evaluated part by part, each part on its own
    fastest engine (and_masks itself needs torch: it starts from b.new_ones)."""

    kind: str
    parts: list
    name: str

    @property
    def engine(self) -> str:
        return "+".join(sorted({p.engine for p in self.parts}))

    def tile(self, q0: int, q1: int, k0: int, k1: int) -> np.ndarray:
        out = None
        for part in self.parts:
            cells = part.tile(q0, q1, k0, k1)
            out = cells.copy() if out is None else (out & cells if self.kind == "and" else out | cells)
        return out


def _probes(q_len: int, kv_len: int) -> list[tuple[int, int, int, int]]:
    """The first, a middle and the last tile, and two corners (PROBE cells a side)."""
    out = []
    for q0, k0 in ((0, 0), (q_len // 2, kv_len // 2), (q_len - PROBE, kv_len - PROBE), (0, kv_len - PROBE),
                   (q_len - PROBE, 0)):
        q0, k0 = max(0, q0), max(0, k0)
        out.append((q0, min(q_len, q0 + PROBE), k0, min(kv_len, k0 + PROBE)))
    return out


def evaluator(fn: Callable, name: str, q_len: int, kv_len: int, b: int = 0, h: int = 0) -> Evaluator | Combined:
    """The fastest engine that gives torch's own cells on probe tiles (the
    first, the last, a middle one and two corners); vmap when no shortcut
    does. and_masks / or_masks are evaluated part by part (Combined) when
    that gives the same cells."""
    probes = _probes(q_len, kv_len)
    ev = Evaluator(fn, name, b, h, "vmap")
    truth = [ev.tile(*p) for p in probes]  # errors here are the function's own: told in one line
    parts = _parts(fn)
    if parts is not None:
        combined = Combined(parts[0], [evaluator(m, name, q_len, kv_len, b, h) for m in parts[1]], name)
        if all(np.array_equal(combined.tile(*p), t) for p, t in zip(probes, truth)):
            return combined
    for engine in ("numpy", "torch"):
        try:
            with warnings.catch_warnings():  # a trial's warnings (numpy into torch...) are not the user's
                warnings.simplefilter("ignore")
                if all(np.array_equal(Evaluator(fn, name, b, h, engine)._run(engine, *p), t)
                       for p, t in zip(probes, truth)):
                    return Evaluator(fn, name, b, h, engine)
        except KeyboardInterrupt:
            raise
        except BaseException:  # noqa: BLE001 - this shortcut does not apply (sys.exit on numpy too): try the next
            continue
    return ev


def depends_on(fn: Callable, name: str, q_len: int, kv_len: int, b: int, h: int) -> list[tuple[str, int, int, int]]:
    """Does NAME give other cells at the next batch or head index? Checked on
    probe tiles with torch's vmap: [(option, other index, query, key)] for
    each of --batch / --head where some probed cell differs."""
    out = []
    for option, bb, hh in (("--batch", b + 1, h), ("--head", b, h + 1)):
        here, there = Evaluator(fn, name, b, h, "vmap"), Evaluator(fn, name, bb, hh, "vmap")
        for q0, q1, k0, k1 in _probes(q_len, kv_len):
            try:
                differ = np.argwhere(here.tile(q0, q1, k0, k1) != there.tile(q0, q1, k0, k1))
            except MaskattnError:  # e.g. a per-head table with one head: nothing to compare
                break
            if differ.size:
                out.append((option, bb if option == "--batch" else hh, q0 + int(differ[0][0]), k0 + int(differ[0][1])))
                break
    return out
