"""The mask doctor: reads a saved attention mask (.npy, .npz, .safetensors,
.pt, printed torch or numpy text, JSON, 0/1 rows) or a Hugging Face
attention_mask, and says what it is and what is wrong with it. Pure
functions for the CLI and the TUI (numpy, never Textual or Rich):

    from maskattn_tui.doctor import load_mask, diagnose, block_overview
    mask, info = load_mask("mask.npy", batch=None, head=None)
    d = diagnose(mask, source=info)          # a frozen Diagnosis
    overview = block_overview(mask, 128)     # 0 empty, 1 partial, 2 full

numpy is imported only here (below), never by the rest of the package:
`maskattn_tui.cli.doctor` adds the arguments without loading it.

Modules: read (files; file_checks, read_npy, read_tensors), text_table
+ text_values (printed tensors), json_error (--json errors), representation,
rows (row statistics), alignment (polarity x alignment), rules (rule
tables), compare, patterns (a pattern's parameters from the rows),
families (every family's reading and its cost), readings (choosing among
them), diagnosis, findings, hf_pair, expect, slices (3-D / 4-D slices),
expect_run (--expect over slices), against, blocks, report, cli."""

from importlib import import_module

_HOMES = {
    "load_mask": "read", "MaskInfo": "read",
    "diagnose": "diagnosis", "Diagnosis": "diagnosis", "Finding": "findings",
    "block_overview": "blocks",
    "expected_allowed": "expect", "ExpectOptions": "expect",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value
