"""Running a run (runs.py) on a model, and comparing two: the forwards its
steps make (one fresh cache shared by them when the run says so, the
attention implementation switched for it and switched back), the protected
positions picked out of each step's per-position output, and the
difference per position against a tolerance that follows the dtype.

Tolerance: rtol(dtype) x the reference's largest magnitude at the
protected positions. float32: 1e-5 — a correct tiny model's reorderings
(cache, padding, packing, eager vs sdpa) differ by 1e-7 to 4e-7 of that
scale (measured: tests/test_probe.py), the planted leaks by 1e-2 to 1."""

from __future__ import annotations

from contextlib import contextmanager

import torch

from maskattn_tui.probe.model_io import ModelIO, attention_modules

#: relative tolerance by dtype, each with >= 10x margin over a correct tiny Llama's largest
#: reordering (eager vs sdpa): float32 4e-7 of the scale, float16 8e-5, bfloat16 7e-4 (both
#: ~8 epsilons allowed); float64 5e-8, as transformers' eager softmax runs in float32 whatever
#: the dtype
RTOL = {torch.float64: 1e-6, torch.float32: 1e-5, torch.float16: 1e-2, torch.bfloat16: 6e-2}


def rtol_of(dtype: torch.dtype) -> float:
    return RTOL.get(dtype, 1e-5)


@contextmanager
def backend(io: ModelIO, name: str | None):
    """The model under attention implementation `name` for the block (its
    own again after, even when the block raises)."""
    if name is None or name == io.backend:
        yield
        return
    before = io.backend
    io.set_backend(name)
    try:
        yield
    finally:
        io.set_backend(before)


def _span(values: list[int]) -> slice | None:
    """values as a slice when they are consecutive, else None."""
    if values and values == list(range(values[0], values[0] + len(values))):
        return slice(values[0], values[0] + len(values))
    return None


@contextmanager
def one_row(io: ModelIO, row: int, batch: int):
    """The model's output head given batch row `row` alone for the block:
    the other rows' logits (the padded batch's second sequence, never
    compared) are not made, which halves the largest forward's output. The
    head maps each position on its own, and the row keeps all its
    positions, so the kept rows' values are the same (the same matrix
    product per row). Yields a list that holds True once the head took the
    one row; a model without a head (or one that calls no module for it)
    runs whole."""
    head = io.head()
    fired: list[bool] = []
    if head is None:
        yield fired
        return

    def only_row(module, args):
        x = args[0] if args else None
        if isinstance(x, torch.Tensor) and x.dim() >= 2 and x.shape[0] == batch:
            fired.append(True)
            return (x[row:row + 1], *args[1:])
        return None

    handle = head.register_forward_pre_hook(only_row)
    try:
        yield fired
    finally:
        handle.remove()


def _forward(io: ModelIO, step, cache, mine: list, slim: bool) -> tuple[torch.Tensor, list]:
    """One step's per-position output [batch, queries, features] and the
    (slot, batch row, query) of its protected positions in it. `slim`: they
    are all in one row of a batch of several and no cache is kept, so the
    head is given that row alone (one_row); when the model then fails or
    gives back another shape, the step is made again whole (no cache: no
    state carried)."""
    args = (step.input_ids, step.attention_mask, step.position_ids, cache,
            True if cache is not None else step.use_cache)
    if slim:
        row = mine[0][1]
        try:
            with one_row(io, row, step.input_ids.shape[0]) as fired:
                out = io.forward(*args)
            if not fired:
                return out, mine  # no head took it: the whole batch's output
            if out.shape[0] == 1:
                return out, [(n, 0, q) for n, _, q in mine]
            del out  # another shape: let go before the step is made whole
        except Exception:  # noqa: BLE001 - its head wants the whole batch: made whole below
            pass
    return io.forward(*args), mine


def execute(io: ModelIO, run, hooks: "LayerHooks | None" = None, against: torch.Tensor | None = None) -> torch.Tensor:
    """The protected positions' outputs [positions, features] in the run's
    slot order; with `against` (another run's, in the same order) the
    difference at each position instead, made step by step as the outputs
    come, so that only one step's output is alive beside `against`. A
    step's protected rows are a view of its output when they are
    consecutive (always, for the runs of runs.py)."""
    cache = None
    if run.cache is not None:
        cache = io.new_cache(run.cache, sum(s.input_ids.shape[1] for s in run.steps))
    kept = diffs = None
    if against is not None:
        diffs = torch.zeros(len(run.slots), dtype=torch.float64)
    with torch.no_grad(), backend(io, run.backend):
        for i, step in enumerate(run.steps):
            if hooks is not None:
                hooks.step()
            mine = [(n, b, q) for n, (s, b, q) in enumerate(run.slots) if s == i]
            batch = {b for _, b, _ in mine}
            slim = hooks is None and cache is None and len(batch) == 1 and step.input_ids.shape[0] > 1
            out, mine = _forward(io, step, cache, mine, slim)
            out = out.reshape(*out.shape[:2], -1)
            if not mine:
                continue
            where, rows = _span([n for n, _, _ in mine]), _span([q for _, _, q in mine])
            batch = {b for _, b, _ in mine}
            if rows is not None and len(batch) == 1:
                got = out[batch.pop(), rows]  # a view: no copy
            else:
                got = out[torch.tensor([b for _, b, _ in mine]), torch.tensor([q for _, _, q in mine])]
            index = where if where is not None else torch.tensor([n for n, _, _ in mine])
            if against is not None:
                diffs[index] = differences(against[index], got)
            elif len(run.steps) == 1 and where == slice(0, len(run.slots)):
                return got  # the one forward's own rows, in order
            else:
                if kept is None:
                    kept = out.new_empty(len(run.slots), out.shape[-1])
                kept[index] = got
            del out, got
    return diffs if against is not None else kept


def pick(outs: list[torch.Tensor], slots) -> torch.Tensor:
    """The protected positions' rows of per-step outputs: [positions, features]."""
    return torch.stack([outs[s][b, q].reshape(-1) for s, b, q in slots])


#: values compared at a time (1 MiB of float32): the difference of two runs'
#: rows and the magnitudes are made a block of positions at once, so their
#: temporaries stay small beside the logits (8 positions of a 32000 vocabulary)
CHUNK_VALUES = 1 << 18


def _blocks(a: torch.Tensor) -> range:
    return range(0, a.shape[0], max(1, CHUNK_VALUES // max(1, a[0].numel() if a.shape[0] else 1)))


def differences(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """max |a - b| per position; NaN on one side only counts as infinite."""
    parts = []
    blocks = _blocks(a)
    for start in blocks:
        x, y = a[start:start + blocks.step], b[start:start + blocks.step]
        if x.dtype in (torch.float16, torch.bfloat16):
            x, y = x.float(), y.float()
        d = (x - y).abs_().amax(-1)  # amax passes a NaN on: checked on the maxima only
        if bool(d.isnan().any()):  # rare: a NaN (or inf - inf) somewhere
            nan_x, nan_y = torch.isnan(x), torch.isnan(y)
            full = (x - y).abs()
            full = torch.where(nan_x & nan_y, torch.zeros_like(full), full)
            full = torch.where(nan_x ^ nan_y, torch.full_like(full, float("inf")), full)
            d = full.nan_to_num(float("inf")).amax(-1)  # inf - inf: moved without bound
        parts.append(d.double())
    return torch.cat(parts) if parts else torch.zeros(0, dtype=torch.float64)


def magnitudes(a: torch.Tensor) -> torch.Tensor:
    """The largest finite |value| of each position (a run's scale is their
    maximum over the protected positions; the base run's are made once)."""
    blocks = _blocks(a)
    parts = [torch.where(torch.isfinite(x), x.abs(), 0).amax(-1).double()
             for x in (a[start:start + blocks.step] for start in blocks) if x.numel()]
    return torch.cat(parts) if parts else torch.zeros(0, dtype=torch.float64)


class Compared:
    """Two runs' outputs compared: per-position differences (given, or made
    from `b`), the tolerance, and the first position beyond it (None: held)."""

    def __init__(self, a: torch.Tensor, b: torch.Tensor | None, positions: list[int], rtol: float,
                 diff: torch.Tensor | None = None, sizes: torch.Tensor | None = None) -> None:
        sizes = magnitudes(a) if sizes is None else sizes
        self.scale = float(sizes.max()) if sizes.numel() and float(sizes.max()) > 0 else 1.0
        self.rtol = rtol
        self.tolerance = rtol * max(self.scale, 1e-30)
        diff = differences(a, b) if diff is None else diff
        self.max_diff = float(diff.max()) if diff.numel() else 0.0
        self.moved = sorted(p for p, d in zip(positions, diff.tolist()) if not d <= self.tolerance)
        self.first = self.moved[0] if self.moved else None

    @property
    def held(self) -> bool:
        return self.first is None


class LayerHooks:
    """Forward hooks on the attention layers, keeping each call's output
    (the first tensor it returns) per module path and step."""

    def __init__(self, model) -> None:
        self.modules = attention_modules(model)
        self.outputs: dict[str, list[torch.Tensor]] = {name: [] for name, _ in self.modules}
        self._steps = 0
        self._handles = []

    def step(self) -> None:
        self._steps += 1

    def __enter__(self) -> "LayerHooks":
        for name, module in self.modules:
            self._handles.append(module.register_forward_hook(self._keeper(name)))
        return self

    def __exit__(self, *exc) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _keeper(self, name: str):
        def keep(module, args, output):
            first = output if isinstance(output, torch.Tensor) else next(
                (o for o in output if isinstance(o, torch.Tensor)), None) if isinstance(output, (tuple, list)) else None
            if first is not None:
                self.outputs[name].append(first.detach())
        return keep

    def picked(self, name: str, slots) -> torch.Tensor | None:
        """The module's outputs at the protected positions, or None when its
        calls do not line up one per step as [batch, queries, features]."""
        outs = self.outputs[name]
        if len(outs) != self._steps or any(o.dim() < 2 for o in outs):
            return None
        try:
            return pick(outs, slots)
        except IndexError:
            return None
