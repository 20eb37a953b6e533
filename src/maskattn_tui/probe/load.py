"""The model `maskattn-tui probe` runs on, and its input ids:
- `--config config.json`: a transformers config, random weights (seeded),
  nothing downloaded;
- `--model DIR`: a local pretrained folder, `local_files_only=True` and the
  hub switched offline (never the network);
- `FILE.py:NAME`: the user's function, imported and called only because
  they named it (as `doctor FILE.py:NAME` does), returning a Module or
  (module, inputs) — inputs a tensor of ids or a dict with `input_ids`
  (and `attention_mask`). Anything it raises (or exits with) is one line
  naming the function.
An encoder is loaded with AutoModel (a model type with a masked-LM head and
no `is_decoder`), a decoder with AutoModelForCausalLM; the config's own
`architectures` win when they name a transformers class."""

from __future__ import annotations

import json
import os

from maskattn_tui.errors import MaskattnError

DTYPES = ("float32", "float64", "bfloat16", "float16")


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())[:300]
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _model_class(config):
    import transformers
    from transformers.models.auto.modeling_auto import MODEL_FOR_MASKED_LM_MAPPING_NAMES

    for name in getattr(config, "architectures", None) or ():
        cls = getattr(transformers, name, None) if isinstance(name, str) else None
        if cls is not None:
            return cls
    if config.model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES and not getattr(config, "is_decoder", False):
        return transformers.AutoModel
    return transformers.AutoModelForCausalLM


def _quiet():
    from transformers.utils import logging

    logging.set_verbosity_error()  # the report is the output: no config notes,
    logging.disable_progress_bar()  # no "Loading weights" bar on stderr


def from_config(path: str, seed: int, dtype: str, implementation: str | None):
    if not os.path.isfile(path):
        raise MaskattnError("probe_no_config", file=path)
    try:
        with open(path, encoding="utf-8") as file:
            values = json.load(file)
    except (OSError, ValueError) as e:
        raise MaskattnError("probe_bad_config", file=path, error=_one_line(e)) from None
    if not isinstance(values, dict) or not isinstance(values.get("model_type"), str):
        raise MaskattnError("probe_bad_config", file=path, error="no \"model_type\"")
    import torch
    from transformers import AutoConfig

    _quiet()
    values = dict(values)
    try:
        config = AutoConfig.for_model(values.pop("model_type"), **values)
        if implementation is not None:  # else transformers' default: sdpa where the model has it (Gemma 2: eager)
            config._attn_implementation = implementation
        torch.manual_seed(seed)
        cls = _model_class(config)
        model = cls.from_config(config, dtype=getattr(torch, dtype)) if hasattr(cls, "from_config") else \
            cls(config).to(getattr(torch, dtype))
    except Exception as e:  # noqa: BLE001 - transformers' refusal of this config, in one line
        raise MaskattnError("probe_bad_config", file=path, error=_one_line(e)) from None
    return model.eval()


def from_folder(folder: str, dtype: str, implementation: str | None):
    if not os.path.isdir(folder):
        raise MaskattnError("probe_no_model", folder=folder)
    os.environ["HF_HUB_OFFLINE"] = "1"  # never the network, whatever the folder names
    from transformers import AutoConfig
    import torch

    _quiet()
    try:
        config = AutoConfig.from_pretrained(folder, local_files_only=True)
        extra = {"attn_implementation": implementation} if implementation else {}
        model = _model_class(config).from_pretrained(folder, local_files_only=True, dtype=getattr(torch, dtype),
                                                     **extra)
    except Exception as e:  # noqa: BLE001
        raise MaskattnError("probe_bad_model", folder=folder, error=_one_line(e)) from None
    return model.eval()


def from_function(spec: str):
    """(model, input_ids or None, attention_mask or None) from the user's function."""
    from maskattn_tui.scale.mask_mod import load, split_spec

    try:
        fn = load(spec)
    except MaskattnError as e:
        if e.key == "scale_not_callable":
            raise MaskattnError("probe_not_callable", **e.params) from None
        raise
    import torch

    name = split_spec(spec)[1]
    try:
        made = fn()
    except BaseException as e:  # the user's code: any failure, exit included, is theirs, told in one line
        if isinstance(e, KeyboardInterrupt):
            raise
        raise MaskattnError("probe_function_failed", name=name, error=_one_line(e)) from None
    inputs = None
    if isinstance(made, tuple) and len(made) == 2:
        made, inputs = made
    if not isinstance(made, torch.nn.Module):
        raise MaskattnError("probe_not_module", name=name, got=type(made).__name__)
    if inputs is None:
        return made, None, None
    if isinstance(inputs, torch.Tensor):
        return made, inputs, None
    if isinstance(inputs, dict) and isinstance(inputs.get("input_ids"), torch.Tensor):
        return made, inputs["input_ids"], inputs.get("attention_mask")
    raise MaskattnError("probe_bad_inputs", name=name, got=type(inputs).__name__)


def random_ids(model, tokens: int, seed: int):
    """Seeded token ids in the model's vocabulary, none of them its PAD id."""
    import torch

    from maskattn_tui.probe.model_io import ModelIO

    io = ModelIO(model)
    vocab = io.vocab_size(torch.zeros(1, dtype=torch.long))
    ids = torch.randint(0, vocab, (1, tokens), generator=torch.Generator().manual_seed(seed))
    ids[ids == io.pad_id] = (io.pad_id + 1) % vocab
    return ids
