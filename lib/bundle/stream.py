"""The bundle's random stream in Python: the same methods, names and bytes as lib/bundle/stream.ts.

For specification reference SPEC and seed s, block i is SHA-256 of the UTF-8 text ``SPEC|s|i``;
the stream is block 0, block 1, ... concatenated and consumed strictly in order. Every drawing
method is defined on top of ``bytes`` with integer arithmetic and exact IEEE conversions only
(lib/bundle/README.md, "The stream"). Arrays are numpy arrays of the element type; draws of many
values are vectorised, single draws are Python ints and floats.

A Python bundle's ``generate(point, stream)`` receives one of these; authors may also import it
(``from arbor_stream import Stream``) inside a bundle, where arbor makes it importable.
"""

import hashlib
import operator

import numpy as np

__all__ = ["Stream", "bit_length"]

MAX_SAFE = 2**53 - 1
# below() of many values runs in uint64 arithmetic while r * 256 + 255 stays below 2^64.
_FAST_BELOW = 2**55

_INT_DTYPES = {
    "i8": np.dtype("<i1"),
    "i16": np.dtype("<i2"),
    "i32": np.dtype("<i4"),
    "i64": np.dtype("<i8"),
    "u8": np.dtype("<u1"),
    "u16": np.dtype("<u2"),
    "u32": np.dtype("<u4"),
    "u64": np.dtype("<u8"),
}


def bit_length(n):
    """Number of binary digits of n >= 1 (bit_length(1) = 1, bit_length(256) = 9)."""
    return operator.index(n).bit_length()


def _count(n, what):
    try:
        n = operator.index(n)
    except TypeError:
        raise ValueError(f"{what}(n) needs a non-negative integer, got {n!r}") from None
    if n < 0:
        raise ValueError(f"{what}(n) needs a non-negative integer, got {n}")
    return n


class Stream:
    """A seekable, deterministic byte stream for one (SPEC, seed)."""

    def __init__(self, spec, seed, position=0):
        seed = operator.index(seed)
        if seed < 0 or seed > MAX_SAFE:
            raise ValueError(f"seed must be a non-negative integer below 2^53, got {seed}")
        self.spec = str(spec)
        self.seed = seed
        self._prefix = hashlib.sha256(f"{self.spec}|{seed}|".encode("utf-8"))
        self.seek(position)

    # -- positions ---------------------------------------------------------------------------

    @property
    def position(self):
        """Bytes consumed so far."""
        return self._block * 32 - (len(self._buf) - self._used)

    def seek(self, position):
        """Move to byte ``position`` (block i depends on i only)."""
        position = operator.index(position)
        if position < 0:
            raise ValueError("position must be a non-negative integer")
        self._block, offset = divmod(position, 32)
        self._buf = b""
        self._used = 0
        if offset:
            self._buf = self._digest(self._block)
            self._used = offset
            self._block += 1

    def _digest(self, i):
        return self._digests(i, 1)

    def _digests(self, first, count):
        """Blocks first .. first + count - 1, concatenated: the loop a large draw spends its time in."""
        # A plain loop over bound methods: 0.56 us a block against 0.62 us for a generator calling a
        # method per block (117,000 blocks, idle); SHA-256 itself is most of what is left.
        copy = self._prefix.copy
        out = []
        append = out.append
        for i in range(first, first + count):
            h = copy()
            h.update(b"%d" % i)
            append(h.digest())
        return b"".join(out)

    def _take(self, n):
        """The next n bytes as a bytes object."""
        left = len(self._buf) - self._used
        if n <= left:
            out = self._buf[self._used : self._used + n]
            self._used += n
            return out
        parts = [self._buf[self._used :]]
        full, rest = divmod(n - left, 32)
        first = self._block
        parts.append(self._digests(first, full))
        self._block = first + full
        if rest:
            block = self._digest(self._block)
            self._block += 1
            parts.append(block[:rest])
            self._buf, self._used = block, rest
        else:
            self._buf, self._used = b"", 0
        return b"".join(parts)

    # -- the three base methods --------------------------------------------------------------

    def bytes(self, n):
        """The next n bytes, as a numpy uint8 array."""
        n = _count(n, "bytes")
        return np.frombuffer(bytearray(self._take(n)), dtype=np.uint8)

    def fill(self, out):
        """Fill ``out`` (a writable bytes-like object or uint8 array) with the next bytes; returns it."""
        view = memoryview(out).cast("B")
        view[:] = self._take(len(view))
        return out

    def bits(self, k):
        """The next ceil(k/8) bytes as a little-endian unsigned integer, keeping its low k bits."""
        k = _count(k, "bits")
        value = int.from_bytes(self._take((k + 7) // 8), "little")
        return value & ((1 << k) - 1)

    def below(self, n):
        """bits(bit_length(n) + 64) mod n: a uniform integer in [0, n), bias below 2^-64."""
        n = operator.index(n)
        if n < 1:
            raise ValueError(f"below(n) needs an integer n >= 1, got {n}")
        return self.bits(n.bit_length() + 64) % n

    # -- further methods ---------------------------------------------------------------------

    def int(self, lo, hi):
        """lo + below(hi - lo + 1): a uniform integer in [lo, hi], for integers below 2^53 in magnitude."""
        lo, hi = operator.index(lo), operator.index(hi)
        if abs(lo) > MAX_SAFE or abs(hi) > MAX_SAFE or lo > hi:
            raise ValueError(f"int(lo, hi) needs integers lo <= hi below 2^53 in magnitude, got {lo}, {hi}")
        return lo + self.below(hi - lo + 1)

    def bigint(self, lo, hi):
        """lo + below(hi - lo + 1) for integers of any size."""
        lo, hi = operator.index(lo), operator.index(hi)
        if lo > hi:
            raise ValueError(f"bigint(lo, hi) needs lo <= hi, got {lo}, {hi}")
        return lo + self.below(hi - lo + 1)

    def bool(self):
        """bits(1) == 1 (consumes one byte)."""
        return (self._take(1)[0] & 1) == 1

    def float64(self):
        """bits(53) / 2^53: an exact float in [0, 1) (consumes 7 bytes)."""
        return self.bits(53) / 2**53

    def float32(self):
        """bits(24) / 2^24: a value in [0, 1) exactly representable as float32 (consumes 3 bytes)."""
        return self.bits(24) / 2**24

    def uniform(self, lo, hi):
        """lo + (hi - lo) * float64(), in IEEE double arithmetic in that order."""
        lo, hi = float(lo), float(hi)
        return lo + (hi - lo) * self.float64()

    def float64s(self, n, lo=0, hi=1):
        """A float64 array of n draws: float64(), or uniform(lo, hi) when (lo, hi) != (0, 1)."""
        n = _count(n, "float64s")
        wide = np.zeros((n, 8), dtype=np.uint8)
        wide[:, :7] = np.frombuffer(self._take(7 * n), dtype=np.uint8).reshape(n, 7)
        u = (wide.view("<u8").reshape(n) & np.uint64(2**53 - 1)).astype(np.float64) * 2.0**-53
        if lo == 0 and hi == 1:
            return u
        lo, hi = float(lo), float(hi)
        return np.float64(lo) + np.float64(hi - lo) * u

    def float32s(self, n, lo=0, hi=1):
        """A float32 array of n draws: u = float32(), element = u, or lo + (hi - lo) * u in double rounded once."""
        n = _count(n, "float32s")
        wide = np.zeros((n, 4), dtype=np.uint8)
        wide[:, :3] = np.frombuffer(self._take(3 * n), dtype=np.uint8).reshape(n, 3)
        u = wide.view("<u4").reshape(n).astype(np.float64) * 2.0**-24
        if not (lo == 0 and hi == 1):
            lo, hi = float(lo), float(hi)
            u = np.float64(lo) + np.float64(hi - lo) * u
        return u.astype(np.float32)

    def ints(self, type, n, lo=None, hi=None):
        """n integers of element type ``type`` ("i8" ... "u64"): every bit pattern, or int(lo, hi) each when a range is given."""
        n = _count(n, "ints")
        dtype = _INT_DTYPES.get(type)
        if dtype is None:
            raise ValueError(f"ints: unknown integer type {type!r}, expected one of {' '.join(_INT_DTYPES)}")
        if lo is None or hi is None:
            return np.frombuffer(bytearray(self._take(n * dtype.itemsize)), dtype=dtype)
        lo, hi = operator.index(lo), operator.index(hi)
        info = np.iinfo(dtype)
        if lo < int(info.min) or hi > int(info.max) or lo > hi:
            raise ValueError(f"ints({type}, n, lo, hi) needs {info.min} <= lo <= hi <= {info.max}, got {lo}, {hi}")
        m = hi - lo + 1
        if m >= _FAST_BELOW:
            return np.array([lo + self.below(m) for _ in range(n)], dtype=dtype)
        r = self._belows(np.full(n, m, dtype=np.uint64))
        if dtype.kind == "u":
            return (np.uint64(lo) + r).astype(dtype)
        return (np.int64(lo) + r.astype(np.int64)).astype(dtype)

    def shuffle(self, items):
        """Fisher-Yates in place on a list or 1-D array: for i = len-1 down to 1, j = below(i + 1), swap. Returns items."""
        n = len(items)
        if n < 2:
            return items
        if n >= _FAST_BELOW:
            raise ValueError("shuffle: too many items")
        js = self._belows(np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        if isinstance(items, np.ndarray):
            values = items.tolist()
            _swap(values, js)
            items[...] = np.asarray(values, dtype=items.dtype)
        else:
            _swap(items, js)
        return items

    def permutation(self, n):
        """shuffle of [0, 1, ..., n-1] as an int32 array."""
        n = _count(n, "permutation")
        if n >= 2**31:
            raise ValueError("permutation(n) needs n < 2^31")
        return self.shuffle(np.arange(n, dtype=np.int32))

    def _belows(self, ms):
        """below(m) for each m of a uint64 array (all m < 2^55), drawn in order, as uint64."""
        count = len(ms)
        if count == 0:
            return np.zeros(0, dtype=np.uint64)
        bits = _bit_lengths(ms) + 64
        widths = (bits + 7) // 8
        raw = np.frombuffer(self._take(int(widths.sum())), dtype=np.uint8)
        out = np.zeros(count, dtype=np.uint64)
        kinds = np.unique(widths).tolist()
        starts = None if len(kinds) == 1 else np.cumsum(widths) - widths
        for width in kinds:
            if starts is None:
                idx = slice(None)
                group = raw.reshape(count, width)
            else:
                idx = np.nonzero(widths == width)[0]
                group = raw[starts[idx, None] + np.arange(width)]
            top_bits = (bits[idx] - 8 * (width - 1)).astype(np.uint64)
            m = ms[idx]
            r = (group[:, width - 1].astype(np.uint64) & ((np.uint64(1) << top_bits) - np.uint64(1))) % m
            # The lower bytes, `step` at a time: r * 256^step + chunk < m * 256^step <= 2^64, so nothing
            # wraps, and r ends as the same residue the byte-by-byte rule (r * 256 + byte) % m gives.
            step = max(1, (64 - int(m.max()).bit_length()) // 8)
            j = width - 1
            while j > 0:
                take = min(step, j)
                low = j - take
                chunk = np.zeros(len(r), dtype=np.uint64)
                for t in range(take - 1, -1, -1):
                    chunk = (chunk << np.uint64(8)) | group[:, low + t]
                r = (r * np.uint64(256**take) + chunk) % m
                j = low
            out[idx] = r
        return out


def _bit_lengths(ms):
    """bit_length of each value of a non-empty uint64 array, as int64 (one value for a constant array)."""
    if (ms == ms[0]).all():
        return np.full(len(ms), int(ms[0]).bit_length(), dtype=np.int64)
    bl = np.zeros(len(ms), dtype=np.int64)
    t = ms.copy()
    while t.any():
        bl += t > 0
        t >>= np.uint64(1)
    return bl

def _swap(values, js):
    i = len(values) - 1
    for j in js:
        values[i], values[j] = values[j], values[i]
        i -= 1
