"""The scores of one mask-mode slice of a call kept by `capture --weights`:
q·kᵀ·scale (Gemma's softcap applied as the model does), plus the call's own
mask where it is additive. They go to mask mode as a scores table (the
path of `--scores`), whose bars then show softmax over each row's visible
keys: the weights the call really computed. Pure numpy."""

from __future__ import annotations

import numpy as np

from maskattn_tui.capture.table_files import read_table
from maskattn_tui.errors import MaskattnError


def _load(folder: str, digest) -> np.ndarray | None:
    """q or k, read as every table of a folder is (table_files): a file
    that is a link, special, of another name's bytes or shape is not used."""
    if not isinstance(digest, str):
        return None
    try:
        array = read_table(folder, "qk", digest, dims=4)
    except MaskattnError:
        return None
    return array if array.dtype == np.float32 else None


def call_scores(folder: str, call: dict, batch: int, head: int, mask: np.ndarray) -> np.ndarray | None:
    """The (Q, K) scores of batch row `batch`, head `head` of `call` (the
    mask slice's indices: a mask broadcast over an axis is slice 0 of it,
    and so is its q), or None when the call kept no q/k for that slice."""
    kept = call.get("weights")
    if not isinstance(kept, dict):
        return None
    q, k = _load(folder, kept.get("q")), _load(folder, kept.get("k"))
    group, scale = kept.get("group"), kept.get("scale")
    if q is None or k is None or not isinstance(group, int) or group < 1 or not isinstance(scale, (int, float)):
        return None
    if batch >= q.shape[0] or head >= q.shape[1] or head // group >= k.shape[1] and kept.get("all"):
        return None
    kv = head // group if kept.get("all") else 0
    rows, keys = mask.shape
    if q.shape[2] != rows or k.shape[2] != keys or q.shape[3] != k.shape[3]:
        return None
    scores = (q[batch, head].astype(np.float64) @ k[batch, kv].astype(np.float64).T) * float(scale)
    softcap = kept.get("softcap")
    if isinstance(softcap, (int, float)) and softcap:
        scores = np.tanh(scores / softcap) * softcap
    if mask.dtype.kind == "f":  # an additive mask is added (its hidden cells are hidden by the reading too)
        with np.errstate(over="ignore", invalid="ignore"):
            scores = scores + mask.astype(np.float64)
    return scores
