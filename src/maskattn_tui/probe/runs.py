"""The runs an invariance compares, as data: each run is a list of forward
steps (the ids, padding mask, position ids, whether the steps share one
cache and of which kind, the attention implementation) and the protected
positions it is compared at — (step, batch row, query index) for each
position of the probed sequence. The same description drives the bare
forwards, the re-run with hooks on the attention layers and the captured
re-run, and tells which absolute position each captured mask row and key
column stands for (locate.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class Step:
    input_ids: torch.Tensor
    attention_mask: torch.Tensor | None = None
    position_ids: torch.Tensor | None = None
    use_cache: bool | None = False
    #: per batch row: the absolute position (in the probed sequence) of each
    #: query, None for a PAD or another sequence's token
    labels: list[list[int | None]] = field(default_factory=list)
    #: what it is, for the report (a string key and its parameters): forward, prefill 0-7, decode 8, …
    name: tuple = ("probe.step.forward", {})


@dataclass
class Run:
    key: str  # equal keys: the same run, made once
    steps: list[Step]
    #: (step, batch row, query index) of each protected position
    slots: list[tuple[int, int, int]]
    #: the probed sequence's position of each slot
    positions: list[int]
    #: the steps share one cache of this kind ("dynamic", "static"), or none
    cache: str | None = None
    #: the attention implementation to run under (None: the model's own)
    backend: str | None = None
    #: what it is, for the report: (string key, parameters)
    description: tuple = ("probe.run.one_forward", {})


@dataclass
class Case:
    name: str  # its id: "t=6", "dynamic", "left", "chunks", "documents", "eager"
    a: Run
    b: Run
    label: tuple = ()  # (string key, parameters) for the report


def _labels(n: int, start: int = 0) -> list[int | None]:
    return list(range(start, start + n))


def base(ids: torch.Tensor, use_cache: bool | None = False) -> Run:
    n = ids.shape[1]
    step = Step(ids, use_cache=use_cache, labels=[_labels(n)])
    return Run("base", [step], [(0, 0, q) for q in range(n)], list(range(n)))


def _sub(run: Run, upto: int) -> Run:
    """The same run compared at positions <= upto only."""
    keep = [i for i, p in enumerate(run.positions) if p <= upto]
    return Run(run.key, run.steps, [run.slots[i] for i in keep], [run.positions[i] for i in keep], run.cache,
               run.backend, run.description)


def future(ids: torch.Tensor, vocab: int, generator: torch.Generator) -> list[Case]:
    """Every token after t changed (to a different one), for several t: the
    outputs at positions <= t must not move."""
    n = ids.shape[1]
    ts = sorted({max(0, min(n - 2, t)) for t in (n // 4, n // 2, (3 * n) // 4)})
    cases = []
    for t in ts:
        changed = ids.clone()
        shift = torch.randint(1, vocab, (n - t - 1,), generator=generator).to(ids.device)
        changed[0, t + 1:] = (ids[0, t + 1:] + shift) % vocab
        b = base(changed)
        b.key, b.description = f"future-{t}", ("probe.run.future", {"t": t})
        cases.append(Case(f"t={t}", _sub(base(ids), t), _sub(b, t), ("probe.case.future", {"t": t})))
    return cases


def _steps_over_cache(ids: torch.Tensor, bounds: list[tuple[int, int]], kind: str, word: str) -> list[Step]:
    return [Step(ids[:, s:e], use_cache=True, labels=[_labels(e - s, s)],
                 name=(f"probe.step.{word}", {"at": s if e - s == 1 else f"{s}-{e - 1}"})) for s, e in bounds]


def _over_cache(key: str, ids: torch.Tensor, bounds: list[tuple[int, int]], kind: str, word: str,
                description: tuple) -> Run:
    steps = _steps_over_cache(ids, bounds, kind, word)
    slots = [(i, 0, q) for i, (s, e) in enumerate(bounds) for q in range(e - s)]
    return Run(key, steps, slots, list(range(ids.shape[1])), cache=kind, description=description)


def cache(ids: torch.Tensor, kinds: list[str]) -> list[Case]:
    """One forward vs a prefill and one-token decode steps over the cache."""
    n = ids.shape[1]
    prefill = max(1, n - 4)
    bounds = [(0, prefill)] + [(i, i + 1) for i in range(prefill, n)]
    cases = []
    for kind in kinds:
        run = _over_cache(f"cache-{kind}", ids, bounds, kind, "decode",
                          ("probe.run.cache", {"prefill": prefill, "steps": n - prefill, "kind": kind}))
        run.steps[0].name = ("probe.step.prefill", {"at": f"0-{prefill - 1}"})
        cases.append(Case(kind, base(ids), run, ("probe.case.cache", {"kind": kind})))
    return cases


def chunked(ids: torch.Tensor) -> list[Case]:
    """One prefill over the cache vs the same prompt in chunks."""
    n = ids.shape[1]
    size = max(1, -(-n // 3))
    bounds = [(s, min(n, s + size)) for s in range(0, n, size)]
    one = _over_cache("prefill-one", ids, [(0, n)], "dynamic", "prefill", ("probe.run.prefill_one", {}))
    chunks = _over_cache("prefill-chunks", ids, bounds, "dynamic", "chunk",
                         ("probe.run.chunks", {"count": len(bounds), "size": size}))
    return [Case("chunks", one, chunks, ("probe.case.chunks", {"size": size}))]


def padding(ids: torch.Tensor, pad_id: int, vocab: int, generator: torch.Generator,
            with_positions: bool) -> list[Case]:
    """The sequence alone vs left- and right-padded in a batch with a longer
    one (its real positions compared). Left padding needs position ids that
    start at its first real token, as generate() makes them; where the model
    takes position ids every run of this invariance is given them (the
    sequence alone 0..n-1 too), since a model may derive its own otherwise
    (RoBERTa counts from its padding index + 1)."""
    n = ids.shape[1]
    extra = min(8, max(2, n // 4))  # a few PADs show a leak as well as many; the batch stays ~2 forwards
    other = torch.randint(0, vocab, (1, n + extra), generator=generator).to(ids.device)
    other[other == pad_id] = (pad_id + 1) % vocab
    pads = torch.full((1, extra), pad_id, dtype=ids.dtype, device=ids.device)
    cases = []
    alone = base(ids)
    if with_positions:
        alone.key = "base-positions"
        alone.steps[0].position_ids = torch.arange(n, device=ids.device)[None]
    for side in ("left", "right") if with_positions else ("right",):
        row = torch.cat([pads, ids], 1) if side == "left" else torch.cat([ids, pads], 1)
        real = torch.zeros(1, n + extra, dtype=torch.long, device=ids.device)
        if side == "left":
            real[0, extra:] = 1
        else:
            real[0, :n] = 1
        mask = torch.cat([real, torch.ones_like(real)])
        positions = (mask.cumsum(-1) - 1).clamp(min=0) if side == "left" else \
            torch.arange(n + extra, device=ids.device)[None].expand(2, -1) if with_positions else None
        offset = extra if side == "left" else 0
        labels = [[None] * extra + _labels(n) if side == "left" else _labels(n) + [None] * extra,
                  [None] * (n + extra)]
        step = Step(torch.cat([row, other]), mask, positions, False, labels)
        run = Run(f"pad-{side}", [step], [(0, 0, offset + q) for q in range(n)], list(range(n)),
                  description=(f"probe.run.padded_{side}", {"extra": extra}))
        cases.append(Case(side, alone, run, (f"probe.case.{side}", {})))
    return cases


def packing(ids: torch.Tensor) -> list[Case]:
    """Documents run separately vs packed in one row with position ids that
    restart at each document and use_cache=False (the path where
    transformers builds the block-diagonal mask)."""
    n = ids.shape[1]
    size = max(1, -(-n // 3))
    bounds = [(s, min(n, s + size)) for s in range(0, n, size)]
    steps = [Step(ids[:, s:e], use_cache=False, labels=[_labels(e - s, s)], name=("probe.step.document", {"at": d}))
             for d, (s, e) in enumerate(bounds)]
    alone = Run("docs-alone", steps,
                [(d, 0, q) for d, (s, e) in enumerate(bounds) for q in range(e - s)], list(range(n)),
                description=("probe.run.docs_alone", {"count": len(bounds)}))
    restart = torch.cat([torch.arange(e - s, device=ids.device) for s, e in bounds])[None]
    packed = Run("docs-packed", [Step(ids, None, restart, False, [_labels(n)], name=("probe.step.packed", {}))],
                 [(0, 0, q) for q in range(n)], list(range(n)),
                 description=("probe.run.packed", {"count": len(bounds)}))
    return [Case("documents", alone, packed, ("probe.case.documents", {"count": len(bounds)}))]


def backends(ids: torch.Tensor, own: str, others: tuple[str, ...]) -> list[Case]:
    """The model's own attention implementation (the base run) vs each
    library one."""
    cases = []
    for other in others:
        if other == own:
            continue
        b = base(ids)
        b.key, b.backend, b.description = f"backend-{other}", other, ("probe.run.backend", {"name": other})
        a = base(ids)  # the base run (same key): the model's own implementation
        a.description = ("probe.run.backend", {"name": own})
        cases.append(Case(other, a, b, ("probe.case.backends", {"own": own, "other": other})))
    return cases
