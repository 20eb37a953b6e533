"""probe(model, input_ids, attention_mask=None, **options): the chapter's
leak test on a real model. Each invariance that applies is run as pairs of
runs (runs.py) whose outputs must agree at the protected positions
(execute.py); a broken one is located (locate.py). Invariances that do not
apply are reported skipped, with why."""

from __future__ import annotations

import os
import tempfile

import torch

from maskattn_tui.errors import MaskattnError
from maskattn_tui.probe import runs as R
from maskattn_tui.probe.execute import Compared, execute, magnitudes, rtol_of
from maskattn_tui.probe.model_io import LIBRARY_BACKENDS, ModelIO
from maskattn_tui.probe.report import INVARIANCES, CaseResult, InvarianceResult, ProbeReport, only_names

#: the order they run in (reported in INVARIANCES' order): the ones compared against the
#: base forward first, then it is let go (chunked and packing keep a run of their own);
#: padding last, see _outputs
ORDER = ("future", "cache", "backends", "chunked", "packing", "padding")
REFERENCES = ("base", "base-positions")
#: the shortest probed sequence: several split points, a prefill and decode steps, three documents
MIN_TOKENS = 4


def _sequence(input_ids, attention_mask) -> torch.Tensor:
    """The probed sequence: row 0's real tokens, as [1, n]."""
    ids = torch.as_tensor(input_ids)
    if ids.dim() == 1:
        ids = ids[None]
    if ids.dim() != 2 or ids.dtype not in (torch.int64, torch.int32):
        raise MaskattnError("probe_bad_ids", shape=tuple(ids.shape), dtype=str(ids.dtype))
    row = ids[:1]
    if attention_mask is not None:
        real = torch.as_tensor(attention_mask)
        real = (real[None] if real.dim() == 1 else real)[0].bool()
        row = row[:, real]
    if row.shape[1] < MIN_TOKENS:
        raise MaskattnError("probe_short", tokens=row.shape[1], least=MIN_TOKENS)
    return row.long()


def probe(model, input_ids, attention_mask=None, *, only=None, keep: str | os.PathLike | None = None,
          seed: int = 0, causal: bool | None = None, progress=None) -> ProbeReport:
    """Run the invariances that apply to `model` on `input_ids` (row 0's real
    tokens). `only`: names or "future,cache"; `keep`: the folder for the
    captured runs of a broken invariance (default: a new temporary folder);
    `causal`: override the guess (an HF config's, or True); `progress`:
    called with (name, index, total) before each invariance."""
    names = only_names(only)
    if keep is not None and os.path.exists(keep) and not os.path.isdir(keep):
        raise MaskattnError("probe_keep_not_folder", folder=os.fspath(keep))
    io = ModelIO(model, causal)
    ids = _sequence(input_ids, attention_mask).to(io.device)
    generator = torch.Generator().manual_seed(seed)
    report = ProbeReport(type(model).__name__, io.backend, str(io.dtype).replace("torch.", ""), ids.shape[1],
                         seed, io.causal)
    was_training = model.training
    model.eval()
    memo: dict = {}
    try:
        try:  # the reference run: a model that cannot make it is bad input, not a probe result
            _outputs(io, R.base(ids), memo)
        except Exception as e:  # noqa: BLE001 - the user's model, told in one line
            raise MaskattnError("probe_base_failed", model=type(model).__name__,
                                error=f"{type(e).__name__}: {' '.join(str(e).split())[:200]}") from None
        done: dict = {}
        for name in ORDER:
            if name not in names:
                done[name] = InvarianceResult(name, "skipped", reason=("probe.skip.only", {}))
                continue
            if progress is not None:
                progress(name, len([n for n in done if n in names]) + 1, len(names))
            done[name] = _invariance(name, io, ids, generator, memo, keep, report)
        report.results = [done[name] for name in INVARIANCES]
    finally:
        model.train(was_training)
    return report


def _cases(name: str, io: ModelIO, ids, generator):
    """(cases, None) or (None, the reason it is skipped)."""
    vocab = io.vocab_size(ids)
    if name == "future":
        return (R.future(ids, vocab, generator), None) if io.causal else (None, ("probe.skip.encoder_future", {}))
    if name in ("cache", "chunked"):
        if not io.causal:
            return None, ("probe.skip.encoder_cache", {})
        kinds = io.cache_kinds()
        if not kinds:
            return None, ("probe.skip.no_cache", {})
        return (R.cache(ids, kinds) if name == "cache" else R.chunked(ids)), None
    if name == "padding":
        if not io.takes("attention_mask"):
            return None, ("probe.skip.no_mask", {})
        return R.padding(ids, io.pad_id, vocab, generator, io.takes("position_ids")), None
    if name == "packing":
        if not io.causal:
            return None, ("probe.skip.encoder_packing", {})
        if not io.takes("position_ids"):
            return None, ("probe.skip.no_positions", {})
        return R.packing(ids), None
    if not io.can_switch():
        return None, ("probe.skip.no_backends", {})
    return R.backends(ids, io.backend, LIBRARY_BACKENDS), None


def _outputs(io: ModelIO, run, memo: dict) -> torch.Tensor:
    """A run's protected outputs. A reference run (the sequence alone: the
    base forward, or padding's with explicit position ids) is made once and
    kept until another reference replaces it or an invariance needs none
    (_invariance); any other run is made when compared. One reference is
    kept at a time: padding, whose batch of two is the largest forward,
    runs last, after the base forward is let go, and its batch's head is
    given the compared row alone (execute.one_row)."""
    if run.key not in REFERENCES:
        return execute(io, run)
    if memo.get("key") != run.key:
        memo.clear()
        full = R.base(run.steps[0].input_ids) if run.key == "base" else run  # every position, whoever asks first
        memo.update(key=run.key, outputs=execute(io, full))
        memo["sizes"] = magnitudes(memo["outputs"])
    return memo["outputs"]


def _invariance(name: str, io: ModelIO, ids, generator, memo: dict, keep, report: ProbeReport) -> InvarianceResult:
    cases, reason = _cases(name, io, ids, generator)
    if cases is None:
        return InvarianceResult(name, "skipped", reason=reason)
    if all(case.a.key != memo.get("key") for case in cases):
        memo.clear()  # no case here needs the kept reference: not kept beside this one's runs
    rtol = rtol_of(io.dtype)
    result = InvarianceResult(name, "held")
    if name == "backends":
        result.notes.append(("probe.skip.flex_cpu", {}))
    for case in cases:
        try:
            a = _outputs(io, case.a, memo)
            if case.a.key in REFERENCES and len(case.a.slots) < a.shape[0]:
                a = a[:len(case.a.slots)]  # the base forward up to t (future): a view
            diff = execute(io, case.b, against=a)  # b is never kept whole: compared step by step
        except Exception as e:  # noqa: BLE001 - the model refused this run: said, not fatal
            result.cases.append(CaseResult(case.name, "skipped", a=case.a.description, b=case.b.description,
                                           label=case.label,
                                           error=f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"))
            continue
        sizes = memo["sizes"][:a.shape[0]] if case.a.key in REFERENCES else None
        compared = Compared(a, None, case.a.positions, rtol, diff, sizes)
        del a  # before the next case's runs: one run's outputs alive at a time, beside the base
        done = CaseResult(case.name, "held" if compared.held else "broken", compared.max_diff, compared.tolerance,
                          rtol, compared.scale, compared.first, len(compared.moved), len(case.a.positions),
                          case.a.description, case.b.description, label=case.label)
        if not compared.held and not any(c.location for c in result.cases):  # located once: its first broken case
            from maskattn_tui.probe.locate import locate

            folder = _folder(keep, report, name, len(result.cases))
            try:
                done.location = locate(io, case, rtol, folder)
            except OSError as e:  # the folder for the captured runs cannot be written
                raise MaskattnError("probe_keep_write", folder=folder, error=f"{type(e).__name__}: {e}") from None
        result.cases.append(done)
    statuses = {c.status for c in result.cases}
    result.status = "broken" if "broken" in statuses else "held" if "held" in statuses else "skipped"
    if result.status == "skipped":
        result.reason = ("probe.skip.failed", {})
    return result


def _folder(keep, report: ProbeReport, name: str, index: int) -> str:
    if report.folder is None:
        report.folder = os.fspath(keep) if keep is not None else tempfile.mkdtemp(prefix="maskattn-probe-")
    return os.path.join(report.folder, f"{name}-{index}")
