"""Probe: the chapter's leak test on a real model — change the future, use
the cache, pad the batch, split the prefill, pack the documents, switch the
attention implementation — and, for an invariance that breaks, the first
attention layer and position that move and the captured call whose mask
differs.

    from maskattn_tui import probe          # or maskattn_tui.probe.probe
    report = probe(model, input_ids)        # a ProbeReport; print(report)
    assert report.exit_code == 0

Modules: runner (probe()), runs (the invariances as pairs of runs),
execute (running and comparing them), locate (the layer, position and
call where a broken one starts), model_io (how a model is called),
report (text and JSON), load (--config, --model, FILE.py:NAME), replay
(--replay DIR: a capture's calls through every attention path here).
Importing this package imports no torch; calling probe() does."""


def probe(model, input_ids, attention_mask=None, **options):
    from maskattn_tui.probe.runner import probe as run

    return run(model, input_ids, attention_mask, **options)


class _CallablePackage(__import__("types").ModuleType):
    """`from maskattn_tui import probe` gives this package (a subpackage wins
    over any attribute of that name): calling it is calling probe()."""

    def __call__(self, model, input_ids, attention_mask=None, **options):
        return probe(model, input_ids, attention_mask, **options)


__import__("sys").modules[__name__].__class__ = _CallablePackage
