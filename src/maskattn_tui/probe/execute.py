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

#: relative tolerance by dtype (float32 measured; half precisions from their epsilon x ~8)
RTOL = {torch.float64: 1e-10, torch.float32: 1e-5, torch.float16: 1e-2, torch.bfloat16: 6e-2}


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


def execute(io: ModelIO, run, hooks: "LayerHooks | None" = None) -> list[torch.Tensor]:
    """Each step's per-position output [batch, queries, features]."""
    cache = None
    if run.cache is not None:
        cache = io.new_cache(run.cache, sum(s.input_ids.shape[1] for s in run.steps))
    outs = []
    with torch.no_grad(), backend(io, run.backend):
        for step in run.steps:
            if hooks is not None:
                hooks.step()
            outs.append(io.forward(step.input_ids, step.attention_mask, step.position_ids, cache,
                                   True if cache is not None else step.use_cache))
    return outs


def pick(outs: list[torch.Tensor], slots) -> torch.Tensor:
    """The protected positions' rows: [positions, features]."""
    return torch.stack([outs[s][b, q].reshape(-1) for s, b, q in slots]).double()


def differences(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """max |a - b| per position; NaN on one side only counts as infinite."""
    nan_a, nan_b = torch.isnan(a), torch.isnan(b)
    d = (a - b).abs()
    d = torch.where(nan_a & nan_b, torch.zeros_like(d), d)
    d = torch.where(nan_a ^ nan_b, torch.full_like(d, float("inf")), d)
    return d.amax(-1)


def scale_of(a: torch.Tensor) -> float:
    finite = a[torch.isfinite(a)]
    return float(finite.abs().max()) if finite.numel() else 1.0


class Compared:
    """Two picked outputs compared: per-position differences, the tolerance,
    and the first position beyond it (None: held)."""

    def __init__(self, a: torch.Tensor, b: torch.Tensor, positions: list[int], rtol: float) -> None:
        self.scale = scale_of(a)
        self.rtol = rtol
        self.tolerance = rtol * max(self.scale, 1e-30)
        diff = differences(a, b)
        self.max_diff = float(diff.max()) if diff.numel() else 0.0
        over = [(p, float(d)) for p, d in zip(positions, diff.tolist()) if not d <= self.tolerance]
        self.moved = sorted(p for p, _ in over)
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
