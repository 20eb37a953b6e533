"""How a mask stores visibility (bool, 0/1, additive...), and reading it as
"may this query read this key?", one band of rows at a time so that a
memory-mapped mask is never loaded whole.

Representations:

    bool             True / False
    int01            integers 0 / 1
    float01          floats 0.0 / 1.0: a keep-mask stored as float (Flax, Keras
                     and masked_fill use it as one; adding it to the scores
                     masks nothing: `used_as(rep, "added")` reads it so)
    additive-inf     floats 0 / -inf (an all-zero float mask too: it hides nothing)
    additive-finite  0 / one large finite negative (<= -1e4), e.g. finfo.min
                     (and -inf where two such masks were added: `overflow`)
    bias             finite values, small negatives or several positives, none
                     <= -1e4: a bias added to the scores (T5's relative position
                     bias, ALiBi / BLOOM), hiding no cell
    bias-mask        such a bias plus a mask (cells <= -1e4 or -inf hidden)
    mixed            anything else (e.g. 0 / 255)

The *raw* reading: True/1 is visible for bool and 0/1 masks; a value above
-1e4 is visible for additive (and mixed masks holding negatives). NaN and
+inf are refused."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from maskattn_tui.errors import MaskattnError

#: An additive value at or below this hides its cell.
BLOCK_BELOW = -1e4
#: finfo(dtype).min of the dtypes masks are made in (bf16 is not numpy's).
FINFO_MIN = (("float32", -3.4028234663852886e38), ("bfloat16", -3.3895313892515355e38),
             ("float16", -65504.0), ("float64", -1.7976931348623157e308))
#: Cells per band of rows (a few MB of a bool mask).
BAND_CELLS = 1 << 23


@dataclass(frozen=True)
class Representation:
    kind: str
    #: the finite minimum of an additive-finite mask
    minimum: float | None = None
    #: the dtype whose finfo.min that minimum is, if any
    minimum_dtype: str | None = None
    #: raw reading: "truthy" (nonzero = visible) or "additive" (> -1e4 = visible)
    reading: str = "truthy"
    #: an additive-finite mask also holds -inf (two finfo.min masks added overflow)
    overflow: bool = False


def finfo_name(value: float) -> str | None:
    for name, minimum in FINFO_MIN:
        if abs(value - minimum) <= 1e-4 * abs(minimum):
            return name
    return None


def band_rows(rows: int, keys: int) -> int:
    return max(1, BAND_CELLS // max(1, keys))


def bands(rows: int, keys: int):
    step = band_rows(rows, keys)
    for r0 in range(0, rows, step):
        yield r0, min(rows, r0 + step)


class _Values:
    """What values a numeric mask holds, gathered band by band."""

    def __init__(self) -> None:
        self.zero = self.one = self.neg_inf = self.other_pos = self.hard = False
        self.neg_min = self.neg_max = self.pos_min = self.pos_max = None

    def add(self, band: np.ndarray) -> bool:
        """Fold in a band; False if it holds NaN or +inf."""
        lo, hi = band.min(), band.max()
        if np.isnan(lo) or np.isnan(hi) or hi == np.inf:
            return False
        zero, one = band == 0, band == 1
        self.zero |= bool(zero.any())
        self.one |= bool(one.any())
        if int(np.count_nonzero(zero)) + int(np.count_nonzero(one)) == band.size:
            return True
        other = (band > 0) & ~one if hi > 0 else None
        if other is not None and other.any():
            self.other_pos = True
            values = band[other]
            vmin, vmax = float(values.min()), float(values.max())
            self.pos_min = vmin if self.pos_min is None else min(self.pos_min, vmin)
            self.pos_max = vmax if self.pos_max is None else max(self.pos_max, vmax)
        self.hard |= bool(lo <= BLOCK_BELOW)
        if lo < 0:
            finite = band[(band < 0) & (band > -np.inf)]
            self.neg_inf |= bool(lo == -np.inf)
            if finite.size:
                fmin, fmax = float(finite.min()), float(finite.max())
                self.neg_min = fmin if self.neg_min is None else min(self.neg_min, fmin)
                self.neg_max = fmax if self.neg_max is None else max(self.neg_max, fmax)
        return True

    def kind(self, integer: bool) -> Representation:
        negatives = self.neg_inf or self.neg_min is not None
        several = self.other_pos and (self.pos_min != self.pos_max or self.one)
        soft = self.neg_max is not None and self.neg_max > BLOCK_BELOW  # a small negative: no mask value
        if not integer and (soft or several):  # a bias: no mask value is like these
            return Representation("bias-mask" if self.hard else "bias", reading="additive")
        if not negatives and not self.other_pos:
            if self.one:
                return Representation("int01" if integer else "float01")
            return Representation("int01" if integer else "additive-inf",
                                  reading="truthy" if integer else "additive")
        if negatives and not self.one and not self.other_pos:
            if self.neg_min is None:
                return Representation("additive-inf", reading="additive")
            if self.neg_min == self.neg_max and self.neg_min <= BLOCK_BELOW:
                return Representation("additive-finite", self.neg_min, finfo_name(self.neg_min), "additive",
                                      self.neg_inf)
        return Representation("mixed", reading="additive" if negatives else "truthy")


def check_array(mask: np.ndarray, name: str) -> None:
    """A mask must have cells, and bool, integer or float values."""
    if 0 in mask.shape:
        raise MaskattnError("doctor_empty_shape", file=name, shape="x".join(map(str, mask.shape)))
    if not (mask.dtype == np.bool_ or np.issubdtype(mask.dtype, np.integer)
            or np.issubdtype(mask.dtype, np.floating)):
        raise MaskattnError("doctor_dtype", file=name, dtype=str(mask.dtype))


def classify(mask: np.ndarray, name: str = "") -> Representation:
    """The representation of a 2-D mask; NaN or +inf raise MaskattnError."""
    if mask.dtype == np.bool_:
        return Representation("bool")
    values = _Values()
    rows, keys = mask.shape
    for r0, r1 in bands(rows, keys):
        if not values.add(np.asarray(mask[r0:r1])):
            raise MaskattnError("doctor_nan_inf", file=name)
    return values.kind(np.issubdtype(mask.dtype, np.integer))


def used_as(rep: Representation, float_mask: str | None) -> Representation:
    """A float 0/1 mask as the API uses it: "keep" (1 = attend, the raw
    reading) or "added" to the scores, where it hides nothing."""
    if rep.kind == "float01" and float_mask == "added":
        return Representation("float01", reading="additive")
    return rep


def raw_band(band: np.ndarray, rep: Representation) -> np.ndarray:
    """True where this band's cell is visible under the raw reading."""
    band = np.asarray(band)
    if band.dtype == np.bool_:
        return band
    if rep.reading == "additive":
        return band > BLOCK_BELOW
    return band != 0


class Reading:
    """A 2-D mask read as allowed cells (True = may read) under a polarity:
    "attend" is the raw reading, "blocked" its negation."""

    def __init__(self, mask: np.ndarray, rep: Representation, polarity: str = "attend") -> None:
        self.mask, self.rep, self.polarity = mask, rep, polarity
        self.rows, self.keys = mask.shape

    def flipped(self) -> "Reading":
        return Reading(self.mask, self.rep, "blocked" if self.polarity == "attend" else "attend")

    def band(self, r0: int, r1: int) -> np.ndarray:
        raw = raw_band(self.mask[r0:r1], self.rep)
        return ~raw if self.polarity == "blocked" else raw

    def rows_at(self, index: np.ndarray) -> np.ndarray:
        raw = raw_band(self.mask[np.asarray(index)], self.rep)
        return ~raw if self.polarity == "blocked" else raw

    def bands(self):
        for r0, r1 in bands(self.rows, self.keys):
            yield r0, r1, self.band(r0, r1)
