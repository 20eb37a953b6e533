"""The explorer's seeded inputs (explore.config: `input_row(seed, matrix,
j, n, lo, hi)`) for many positions at once, value for value.

`random.Random(text)` seeds Python's Mersenne Twister with the text and
its SHA-512 (init_by_array), and `randint` takes the top bits of the first
outputs, rejecting those out of range. Seeding costs ~5 us a generator in
C, which made a causal row of 131,072 keys take seconds; here the same
seeding runs for a chunk of positions at a time as numpy uint32 vectors
(one step of the 1,247 per column of the chunk), and only the first
OUTPUTS outputs are tempered. A position whose draws need more outputs
than that (about one in ten million) is drawn by `random` itself."""

from __future__ import annotations

import hashlib
import math
from operator import methodcaller

import numpy as np

_N, _M = 624, 397
#: Outputs made per generator: enough for the explorer's draws but rarely.
OUTPUTS = 24
#: Positions seeded together (the state is 624 x CHUNK uint32: 20 MiB).
CHUNK = 8192
#: Fewer positions than this are drawn by `random` itself: a vector pass has
#: a fixed cost of 1,247 numpy steps (~10 ms), `random` ~6 us a position.
FEW = 1024


def _init_genrand(s: int) -> list[int]:
    mt = [s]
    for i in range(1, _N):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
    return mt


_BASE = _init_genrand(19650218)  # init_by_array starts from this state, the same for every key


_digest = methodcaller("digest")


def _keys(texts: list[bytes]) -> np.ndarray:
    """init_by_array's key of each text (all of one length): the 32-bit
    words, least significant first, of int.from_bytes(text + sha512(text))."""
    sha = hashlib.sha512
    text = np.frombuffer(b"".join(texts), dtype=np.uint8).reshape(len(texts), -1)
    digests = b"".join(map(_digest, map(sha, texts)))  # map: no bytecode a text
    digest = np.frombuffer(digests, dtype=np.uint8).reshape(len(texts), 64)
    raw = np.concatenate([text, digest], axis=1)[:, ::-1]
    width = 4 * math.ceil(raw.shape[1] / 4)
    padded = np.zeros((len(texts), width), dtype=np.uint8)
    padded[:, : raw.shape[1]] = raw
    return padded.view("<u4").astype(np.uint32).T.copy()  # (words, n)


def _outputs(key: np.ndarray) -> np.ndarray:
    """(OUTPUTS, n) uint32: the first outputs of generators seeded by
    init_by_array with `key` (words, n), as _randommodule.c does."""
    length, n = key.shape
    keyed = list(key + np.arange(length, dtype=np.uint32)[:, None])  # init_key[j] + j
    mt = np.empty((_N, n), dtype=np.uint32)
    mt[0] = _BASE[0]  # the other words are still _BASE's until the first loop wraps: read as scalars
    rows = list(mt)  # views made once: the loops below are 1,247 steps
    t = np.empty(n, dtype=np.uint32)
    m1, m2 = np.uint32(1664525), np.uint32(1566083941)
    base = [np.uint32(b) for b in _BASE]
    i, j, wrapped = 1, 0, False
    for _ in range(max(_N, length)):
        prev, row = rows[i - 1], rows[i]
        np.right_shift(prev, 30, out=t)
        np.bitwise_xor(t, prev, out=t)
        np.multiply(t, m1, out=t)
        np.bitwise_xor(t, row if wrapped else base[i], out=t)
        np.add(t, keyed[j], out=row)
        i, j = i + 1, j + 1
        if i >= _N:
            rows[0][:] = rows[_N - 1]
            i, wrapped = 1, True
        if j >= length:
            j = 0
    for _ in range(_N - 1):
        prev, row = rows[i - 1], rows[i]
        np.right_shift(prev, 30, out=t)
        np.bitwise_xor(t, prev, out=t)
        np.multiply(t, m2, out=t)
        np.bitwise_xor(t, row, out=t)
        np.subtract(t, np.uint32(i), out=row)
        i += 1
        if i >= _N:
            rows[0][:] = rows[_N - 1]
            i = 1
    mt[0] = 0x80000000
    # The first twist, for the first OUTPUTS words only (they read words not yet twisted).
    y = (mt[:OUTPUTS] & np.uint32(0x80000000)) | (mt[1:OUTPUTS + 1] & np.uint32(0x7FFFFFFF))
    y = mt[_M:_M + OUTPUTS] ^ (y >> 1) ^ np.where(y & 1, np.uint32(0x9908B0DF), np.uint32(0))
    y ^= y >> 11
    y ^= (y << 7) & np.uint32(0x9D2C5680)
    y ^= (y << 15) & np.uint32(0xEFC60000)
    y ^= y >> 18
    return y


def _accept(outputs: np.ndarray, count: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """randint(lo, hi) `count` times from each column's outputs
    (_randbelow: the top bit_length(width) bits, rejected while >= width):
    ((n, count) int64, ok) where ok is False for a column that ran out."""
    width = hi - lo + 1
    bits = outputs >> np.uint32(32 - width.bit_length())
    good = bits < width
    columns = np.arange(outputs.shape[1])
    out = np.zeros((outputs.shape[1], count), dtype=np.int64)
    ok = np.ones(outputs.shape[1], dtype=bool)
    for c in range(count):  # the c-th accepted output: the first still good, then marked used
        at = np.argmax(good, axis=0)
        ok &= good[at, columns]
        out[:, c] = lo + bits[at, columns].astype(np.int64)
        good[at, columns] = False
    return out, ok


def draws(seed: int, matrix: str, positions, count: int, lo: int, hi: int) -> np.ndarray:
    """(len(positions), count) int64: row i equals explore.config's
    `input_row(seed, matrix, positions[i], count, lo, hi)`."""
    positions = np.asarray(positions, dtype=np.int64).reshape(-1)
    if positions.size < FEW:  # a row move's few new keys
        from maskattn_tui.explore.config import input_row

        return np.array([input_row(seed, matrix, p, count, lo, hi) for p in positions.tolist()],
                        dtype=np.int64).reshape(positions.size, count)
    out = np.zeros((positions.size, count), dtype=np.int64)
    prefix = f"maskattn-explore/{seed}/{matrix}/".encode()
    digits = "\n".join(map(str, positions.tolist())).encode().split(b"\n")  # C loops, not one f-string a key
    lengths = np.fromiter(map(len, digits), dtype=np.int64, count=len(digits))
    for size in np.unique(lengths).tolist():  # one key length per pass
        where = np.flatnonzero(lengths == size)
        for c0 in range(0, where.size, CHUNK):
            part = where[c0:c0 + CHUNK]
            texts = [prefix + digits[i] for i in part.tolist()]
            got, ok = _accept(_outputs(_keys(texts)), count, lo, hi)
            out[part] = got
            for i in part[~ok].tolist():  # ran out of outputs: the generator itself
                from maskattn_tui.explore.config import input_row

                out[i] = input_row(seed, matrix, int(positions[i]), count, lo, hi)
    return out
