"""`capture --weights`: the queries and keys of each SDPA / Hugging Face
attention call, kept so that mask mode can show the call's real attention
weights, softmax(q·kᵀ·scale + mask), of a row.

Kept as float32 .npy files named by content hash, DIR/qk/<hash>.npy (a
tensor seen again, e.g. the q an HF layer passes on to its SDPA call, is
written once). All batch rows and heads are kept while q and k together
hold at most ALL_CELLS numbers (4 MiB); beyond that only batch row 0 and
head 0 (with the key head it reads), which is the slice mask mode opens
first. The call's manifest entry says which (`weights`, docs/json.md)."""

from __future__ import annotations

import math
import os

import torch

from maskattn_tui.capture.table_files import table_digest

#: q and k together up to this many numbers: every batch row and head kept.
ALL_CELLS = 1 << 20


class QkStore:
    def __init__(self, folder: str) -> None:
        self.folder = os.path.join(folder, "qk")
        self.known: set[str] = set()

    def put(self, tensor: torch.Tensor) -> str:
        import numpy as np

        array = tensor.detach().to(torch.float32).cpu().contiguous().numpy()
        digest = table_digest(array)
        if digest not in self.known:
            os.makedirs(self.folder, exist_ok=True)
            path = os.path.join(self.folder, digest + ".npy")
            if not os.path.exists(path):
                partial = f"{path}.{os.getpid()}.part"
                with open(partial, "wb") as file:
                    np.save(file, array, allow_pickle=False)
                os.replace(partial, path)
            self.known.add(digest)
        return digest


def keep(qk: QkStore, q: torch.Tensor, k: torch.Tensor, scale, softcap=None) -> dict | None:
    """The manifest's `weights` of a call with 4-D q [B, H, Q, D] and k
    [B, Hkv, K, D] (anything else: None, nothing kept)."""
    if q.dim() != 4 or k.dim() != 4 or q.shape[-1] != k.shape[-1] or q.shape[0] != k.shape[0]:
        return None
    heads, kv_heads = q.shape[1], k.shape[1]
    if kv_heads == 0 or heads % kv_heads:
        return None
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    everything = q.numel() + k.numel() <= ALL_CELLS
    if not everything:
        q, k = q[:1, :1], k[:1, :1]
    return {"q": qk.put(q), "k": qk.put(k), "all": everything, "batch": q.shape[0], "heads": q.shape[1],
            "kv_heads": k.shape[1], "group": heads // kv_heads, "scale": float(scale),
            "softcap": float(softcap) if isinstance(softcap, (int, float)) and softcap else None}
