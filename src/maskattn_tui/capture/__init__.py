"""Capture: the masks a real PyTorch / Hugging Face run used.

    from maskattn_tui import capture        # or maskattn_tui.capture.capture
    with capture("masks/") as cap:
        model.generate(**batch, max_new_tokens=3)
    print(cap.summary())

Modules: session (the context manager), mode (the wrapped attention functions),
hf (transformers' registries), sites (naming calls), tables (arguments as
tables), store (distinct masks), recorder (calls files), manifest
(capture.json), summary and doctor (reading a capture), run (a script
under capture), cli (the `capture` sub-command). Importing this package
imports no torch; `capture(...)` does."""


def capture(dir=None, weights=False):
    from maskattn_tui.capture.session import capture as start

    return start(dir, weights)


class _CallablePackage(__import__("types").ModuleType):
    """`from maskattn_tui import capture` gives this package (a subpackage
    wins over any attribute of that name): calling it is calling capture()."""

    def __call__(self, dir=None, weights=False):
        return capture(dir, weights)


__import__("sys").modules[__name__].__class__ = _CallablePackage
