"""Each distinct 2-D mask table written once, as DIR/masks/<hash>.npy.

A call's mask is cut into the 2-D slices it means (one per batch row and
head it really varies over: a broadcast or expanded axis gives one slice);
each slice is hashed by its dtype, shape and bytes, and written only the
first time that hash is seen. A tensor seen again unchanged (same object,
same `_version`) is not read again at all: a 32-layer model passing one
mask to every layer hashes it once. A float mask's range (-inf, the lowest
finite value) is read from its distinct slices, with no copy of the mask."""

from __future__ import annotations

import os
import weakref

import torch

from maskattn_tui.capture.table_files import table_digest  # the name the folder's reader checks

#: numpy has no bfloat16: such slices are stored as float32 (exact), the
#: call keeps the tensor's own dtype name.
_AS_NUMPY = {torch.bfloat16: torch.float32}


def _version(tensor: torch.Tensor) -> int | None:
    """The tensor's in-place write counter; None for inference-mode
    tensors, which have none (they are then hashed every time)."""
    try:
        return tensor._version
    except RuntimeError:
        return None


def _numpy_view(tensor: torch.Tensor):
    """The tensor's own memory as a numpy array (any strides), or None when
    that would copy it whole (another device, bfloat16) or cannot be."""
    if tensor.device.type != "cpu" or tensor.dtype in _AS_NUMPY:
        return None
    try:
        return tensor.numpy()
    except (RuntimeError, TypeError):
        return None


class MaskStore:
    """Writes masks/<hash>.npy files; remembers which hashes exist."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.join(folder, "masks")
        os.makedirs(self.folder, exist_ok=True)
        self.known: set[str] = {n[:-4] for n in os.listdir(self.folder) if n.endswith(".npy")}
        # id(base tensor) -> (weakref to it, {view: (_version, result)}): the same unchanged tensor again
        self._seen: dict[int, tuple] = {}
        # (kind, rows, keys) -> the Encoded of the table is_causal or no mask means (tables.sdpa_mask)
        self.fixed: dict[tuple, object] = {}
        # hash -> (has -inf, lowest finite value) of a float table
        self._ranges: dict[str, tuple] = {}

    def slices(self, tensor: torch.Tensor, rows: int, keys: int, finish=None):
        """The slice map of a mask of any broadcast shape, as it applies to
        a call with `rows` queries and `keys` keys: {"batch": B', "heads":
        H', "hashes": [[hash per head] per batch]}, B' and H' being 1 where
        the mask does not vary along that axis. A tensor seen before,
        unchanged, is not read again; nor is the same view of it (the SDPA
        inside an HF layer gets a slice of the layer's mask): a view shares
        its base's memory and `_version`, and the base is held weakly.
        `finish(tensor, slice map)`, if given, makes what is returned (and
        kept for the next time) of the slice map."""
        version = _version(tensor)
        if version is None:
            return self._result(tensor, rows, keys, finish)
        base = tensor._base if tensor._base is not None else tensor
        view = (tensor.storage_offset(), tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype, rows, keys, finish)
        entry = self._seen.get(id(base))
        if entry is None or entry[0]() is not base:
            try:
                entry = self._seen[id(base)] = (weakref.ref(base, self._forget(id(base))), {})
            except TypeError:
                return self._result(tensor, rows, keys, finish)
        known = entry[1].get(view)
        if known is not None and known[0] == version:
            return known[1]
        result = self._result(tensor, rows, keys, finish)
        entry[1][view] = (version, result)
        return result

    def _forget(self, key: int):
        seen = self._seen

        def forget(ref) -> None:
            if key in seen and seen[key][0] is ref:
                del seen[key]
        return forget

    def _result(self, tensor: torch.Tensor, rows: int, keys: int, finish=None):
        result = self._cut(tensor, rows, keys)
        if tensor.is_floating_point():
            result = {**result, **self._range(result)}
        return result if finish is None else finish(tensor, result)

    def _cut(self, tensor: torch.Tensor, rows: int, keys: int) -> dict:
        t = tensor.detach()
        while t.dim() < 4:
            t = t.unsqueeze(0)
        if t.dim() > 4:  # leading axes beyond batch and heads: folded into batch
            t = t.reshape(-1, *t.shape[-3:])
        batch = 1 if t.shape[0] == 1 or t.stride(0) == 0 else t.shape[0]
        heads = 1 if t.shape[1] == 1 or t.stride(1) == 0 else t.shape[1]
        view = _numpy_view(t)
        if view is not None:  # sliced in numpy: a torch op costs microseconds, and a decode step makes many
            import numpy as np

            def table(b: int, h: int):
                one = view[b, h]  # (a decode step's [1, K] slice already has the call's shape: no broadcast)
                return one if one.shape == (rows, keys) else np.broadcast_to(one, (rows, keys))

            hashes = [[self.put(table(b, h)) for h in range(heads)] for b in range(batch)]
        else:
            hashes = [[self.put(t[b, h].expand(rows, keys)) for h in range(heads)] for b in range(batch)]
        return {"batch": batch, "heads": heads, "hashes": hashes}

    def _range(self, result: dict) -> dict:
        """neg_inf / min (the lowest finite value) of a float mask, from its
        distinct slices (which hold every value it has): no copy of the mask."""
        ranges = [self._ranges[h] for row in result["hashes"] for h in row]
        lows = [low for _, low in ranges if low is not None]
        return {"neg_inf": any(neg for neg, _ in ranges), "min": min(lows) if lows else None}

    def put(self, table) -> str:
        """Store one 2-D table (a tensor or numpy array), if new; its hash."""
        import numpy as np  # (numpy is imported by the doctor only, lazily elsewhere)

        if isinstance(table, torch.Tensor):
            table = table.detach()
            table = table.to(_AS_NUMPY.get(table.dtype, table.dtype)).cpu().contiguous().numpy()
        table = np.ascontiguousarray(table)
        digest = table_digest(table)
        if digest not in self._ranges and table.dtype.kind == "f" and table.size:
            with np.errstate(invalid="ignore"):
                low = np.min(table, where=table != -np.inf, initial=np.inf)
            self._ranges[digest] = (bool((table == -np.inf).any()), float(low) if np.isfinite(low) else None)
        if digest not in self.known:
            path = os.path.join(self.folder, digest + ".npy")
            partial = f"{path}.{os.getpid()}.part"
            with open(partial, "wb") as file:
                np.save(file, table, allow_pickle=False)
            os.replace(partial, path)  # a reader never sees half a file
            self.known.add(digest)
        return digest
