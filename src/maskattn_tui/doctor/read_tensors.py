"""Tensor files of the deep-learning libraries:

    .pt / .pth     torch.load(weights_only=True, map_location="cpu") (never
                   a plain unpickle); a tensor, or a dict of tensors with
                   `--key NAME`; a sparse tensor is made dense (at most
                   DENSE_LIMIT bytes); bfloat16 / float16 read as float32
    .safetensors   the safetensors package's numpy loader (safe_open with
                   framework="np"); a tensor chosen with `--key`; bfloat16,
                   which numpy lacks, widened to float32 from its raw bits

The libraries are imported only here, only for such a file, with their
warnings silenced: the user sees one line, the refusal, and nothing else."""

from __future__ import annotations

import json
import warnings

import numpy as np

from maskattn_tui.doctor.file_checks import mib, open_regular, short_reason
from maskattn_tui.doctor.read_npy import pick_key
from maskattn_tui.errors import MaskattnError

#: A sparse tensor made dense may take at most this many bytes.
DENSE_LIMIT = 1 << 30
#: torch's message when weights_only refuses what the pickle holds.
WEIGHTS_ONLY = "Weights only load failed"


def read_pt(name: str, key: str | None) -> tuple[np.ndarray, str, str | None]:
    """(array, dtype as stored, the --key used or None)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import torch
        except ImportError:
            raise MaskattnError("doctor_no_torch", file=name) from None
        try:
            with open_regular(name) as file:
                obj = torch.load(file, weights_only=True, map_location="cpu")
        except MaskattnError:
            raise
        except Exception as exc:  # torch raises many kinds (UnpicklingError, RuntimeError...)
            text = str(exc)
            if WEIGHTS_ONLY in text:
                raise MaskattnError("doctor_pt_objects", file=name) from None
            raise MaskattnError("doctor_pt_load", file=name,
                                reason=short_reason(text) or type(exc).__name__) from None
        chosen = None
        if isinstance(obj, dict) and obj and all(torch.is_tensor(v) for v in obj.values()):
            keys = [str(k) for k in obj]
            chosen = pick_key(name, keys, key, "pt")
            obj = dict(zip(keys, obj.values()))[chosen]
        elif key is not None:
            raise MaskattnError("doctor_key_not_here", file=name)
        if not torch.is_tensor(obj):
            raise MaskattnError("doctor_pt_not_tensor", file=name, kind=type(obj).__name__)
        array, dtype = _tensor_array(torch, obj.detach(), name)
    return array, dtype, chosen


def _tensor_array(torch, tensor, name: str) -> tuple[np.ndarray, str]:
    dtype = str(tensor.dtype).removeprefix("torch.")
    try:
        if tensor.layout != torch.strided:
            need = tensor.numel() * tensor.element_size()
            if need > DENSE_LIMIT:
                raise MaskattnError("doctor_sparse_large", file=name, layout=str(tensor.layout).removeprefix(
                    "torch."), size=mib(need), limit=mib(DENSE_LIMIT))
            tensor = tensor.to_dense()
        tensor = tensor.cpu()
        if tensor.dtype in (torch.bfloat16, torch.float16):
            tensor = tensor.float()  # numpy has no bfloat16; float32 keeps every value
        return tensor.numpy(), dtype
    except MaskattnError:
        raise
    except Exception:  # quantized, float8, meta, nested...: numpy cannot hold it
        raise MaskattnError("doctor_dtype", file=name, dtype=f"{dtype} ({_layout(tensor)})") from None


def _layout(tensor) -> str:
    return str(tensor.layout).removeprefix("torch.")


def read_safetensors(name: str, key: str | None) -> tuple[np.ndarray, str, str]:
    """(array, dtype as stored, the key read)."""
    try:
        from safetensors import SafetensorError, safe_open
    except ImportError:
        raise MaskattnError("doctor_no_safetensors", file=name) from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with safe_open(name, framework="np") as file:
                chosen = pick_key(name, list(file.keys()), key, "safetensors")
                stored = file.get_slice(chosen).get_dtype()
                if stored == "BF16":
                    return _bfloat16(name, chosen), "bfloat16", chosen
                try:
                    array = file.get_tensor(chosen)
                except (TypeError, AttributeError, ValueError):  # a dtype numpy lacks (float8: AttributeError)
                    raise MaskattnError("doctor_dtype", file=f"{name}[{chosen}]", dtype=stored) from None
    except SafetensorError as exc:
        raise MaskattnError("doctor_safetensors_load", file=name, reason=short_reason(exc, 80)) from None
    except OSError as exc:
        raise MaskattnError("doctor_unreadable", file=name, reason=exc.strerror or exc) from None
    return array, str(array.dtype), chosen


def _bfloat16(name: str, key: str) -> np.ndarray:
    """A bfloat16 tensor as float32: its 16 bits are the top half of a
    float32's (exact). The header was already checked by safe_open."""
    with open_regular(name) as file:
        length = int.from_bytes(file.read(8), "little")
        entry = json.loads(file.read(length))[key]
    start, end = entry["data_offsets"]
    shape = tuple(entry["shape"])
    raw = np.memmap(name, dtype="<u2", mode="r", offset=8 + length + start, shape=((end - start) // 2,))
    return (raw.astype(np.uint32) << 16).view(np.float32).reshape(shape)


def looks_like_safetensors(head: bytes, size: int) -> bool:
    """An 8-byte little-endian header length that fits the file, then '{'."""
    if len(head) < 9 or head[8:9] != b"{":
        return False
    return 0 < int.from_bytes(head[:8], "little") <= size - 8
