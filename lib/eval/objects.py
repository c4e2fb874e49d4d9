"""arbor's object encoding: a Python value as the bytes of one u8 tensor, and back.

An entry whose plan says ``interface = "solve"`` carries each case's problem and each answer
as one ``u8`` binding of a fixed capacity (a point parameter). The runner decodes the problem,
calls the solution's ``solve(problem)`` and encodes what it returns; the bundle's verifier
decodes that answer itself, in its own process. What crosses is bytes, so an object the
solution made (one that overrides ``__eq__``, ``__len__`` or ``__array__``, a lazy generator, a
subclass of list or ndarray) never reaches the verifier: it is refused here, by type, before
any of its methods could run.

The bytes: ``AOB1``, the payload's length (u64 LE), the payload, zeros up to the capacity.
A payload is one value; every value is a tag byte and its body (counts and lengths u32 LE):

  N None   F False   T True
  i int         8 bytes two's complement LE (every int that fits 64 bits)
  I int         u32 n, n bytes two's complement LE (the shortest, for an int that does not fit 64 bits)
  f float       8 bytes IEEE 754 LE (the bits as they are: -0.0 and NaN payloads kept)
  c complex     two floats
  s str         u32 n, n bytes UTF-8 (lone surrogates kept)
  b bytes       u32 n, n bytes         y bytearray: the same
  l list        u32 n, n values        t tuple: the same
  d dict        u32 n, n key-value pairs, in insertion order
  S set         u32 n, n values sorted by their bytes   Z frozenset: the same
  a ndarray     u8 n, dtype text (n bytes), u8 ndim, ndim x u64 dims, the data C-ordered LE
  g numpy scalar  u8 n, dtype text, the value's bytes LE
  x scipy sparse  u8 n, the class name (csr_matrix, csc_matrix, coo_matrix, csr_array, csc_array,
                coo_array), 2 x u64 shape, then three arrays (tag a): data, indices, indptr (coo: data,
                row, col), as the matrix stores them

Only the exact types above are encoded (bool, int, float, complex, str, bytes, bytearray,
list, tuple, dict, set, frozenset, numpy.ndarray and numpy's own scalar types, with numeric or
bool dtypes, and scipy's compressed and coordinate sparse matrices and arrays); anything else is
refused with its type's name. Equal values encode to the same
bytes, and decoding then encoding gives the same bytes back. Only this file's own code runs on
a value while it is encoded or decoded.
"""

import itertools
import struct

MAGIC = b"AOB1"
HEADER = len(MAGIC) + 8
# Nesting deeper than this is refused both ways (a recursion the interpreter would stop anyway).
MAX_DEPTH = 200
DTYPE_KINDS = "biufc"
_I64 = 1 << 63
# A list or tuple of at least this many floats, or ints, or equal-length lists of them, is encoded and
# decoded with numpy at once (the same bytes as item by item: _encode_run and _decode_run).
FAST = 8
_RUN_TAGS = {float: (ord("f"), "<f8"), int: (ord("i"), "<i8")}
SPARSE = ("csr_matrix", "csc_matrix", "coo_matrix", "csr_array", "csc_array", "coo_array")


def _sparse_class(name):
    import scipy.sparse

    return getattr(scipy.sparse, name, None)

_np = None


def _numpy():
    global _np
    if _np is None:
        import numpy

        _np = numpy
    return _np


class EncodingError(ValueError):
    """A value this encoding does not carry, or bytes that are not one encoded value."""


def _u32(n):
    if n >= 1 << 32:
        raise EncodingError("a length of %d does not fit the encoding's 32-bit counts" % n)
    return struct.pack("<I", n)


def _dtype_text(dtype):
    text = dtype.str
    if text[0] == ">":
        text = "<" + text[1:]
    return text.encode("ascii")


def _encode(value, out, depth):
    if depth > MAX_DEPTH:
        raise EncodingError("nested more than %d levels deep" % MAX_DEPTH)
    kind = type(value)
    if value is None:
        out.append(b"N")
    elif kind is bool:
        out.append(b"T" if value else b"F")
    elif kind is int:
        if -_I64 <= value < _I64:
            out.append(b"i" + value.to_bytes(8, "little", signed=True))
        else:
            n = (value.bit_length() + 8) // 8
            out.append(b"I" + _u32(n) + value.to_bytes(n, "little", signed=True))
    elif kind is float:
        out.append(b"f" + struct.pack("<d", value))
    elif kind is complex:
        out.append(b"c" + struct.pack("<dd", value.real, value.imag))
    elif kind is str:
        data = value.encode("utf-8", "surrogatepass")
        out.append(b"s" + _u32(len(data)) + data)
    elif kind is bytes or kind is bytearray:
        out.append((b"b" if kind is bytes else b"y") + _u32(len(value)) + bytes(value))
    elif kind is list or kind is tuple:
        out.append((b"l" if kind is list else b"t") + _u32(len(value)))
        if len(value) < FAST or not _encode_run(value, out):
            for item in value:
                _encode(item, out, depth + 1)
    elif kind is dict:
        out.append(b"d" + _u32(len(value)))
        for key, item in value.items():
            _encode(key, out, depth + 1)
            _encode(item, out, depth + 1)
    elif kind is set or kind is frozenset:
        items = []
        for item in value:
            part = []
            _encode(item, part, depth + 1)
            items.append(b"".join(part))
        items.sort()
        out.append((b"S" if kind is set else b"Z") + _u32(len(items)) + b"".join(items))
    else:
        np = _numpy() if kind.__module__ == "numpy" else None
        if np is not None and kind is np.ndarray:
            if value.dtype.kind not in DTYPE_KINDS or value.dtype.fields is not None:
                raise EncodingError("a numpy array of dtype %s (only bool and numeric arrays are carried)" % value.dtype)
            text = _dtype_text(value.dtype)
            if value.ndim > 255:
                raise EncodingError("a numpy array of %d dimensions" % value.ndim)
            data = np.ascontiguousarray(value, dtype=np.dtype(text.decode("ascii"))).tobytes()
            out.append(b"a" + bytes([len(text)]) + text + bytes([value.ndim]) + b"".join(struct.pack("<Q", d) for d in value.shape) + data)
        elif np is not None and isinstance(value, np.generic) and np.dtype(kind).type is kind and np.dtype(kind).kind in DTYPE_KINDS:
            dtype = np.dtype(kind)
            text = _dtype_text(dtype)
            out.append(b"g" + bytes([len(text)]) + text + np.asarray(value, dtype=np.dtype(text.decode("ascii"))).tobytes())
        elif kind.__module__.startswith("scipy.sparse") and kind.__name__ in SPARSE and _sparse_class(kind.__name__) is kind:
            parts = (value.data, value.row, value.col) if kind.__name__.startswith("coo") else (value.data, value.indices, value.indptr)
            name = kind.__name__.encode("ascii")
            out.append(b"x" + bytes([len(name)]) + name + b"".join(struct.pack("<Q", d) for d in value.shape))
            for part in parts:
                if type(part) is not _numpy().ndarray:
                    raise EncodingError("a sparse matrix whose parts are not numpy arrays")
                _encode(part, out, depth + 1)
        else:
            raise EncodingError("a value of type %s.%s (the encoding carries None, bool, int, float, complex, str, bytes, list, tuple, dict, set, numpy arrays and scalars and scipy csr, csc and coo matrices)" % (kind.__module__, kind.__qualname__))


def _encode_run(value, out):
    """Encode the items of a list or tuple of floats, of ints that fit 64 bits, or of lists of
    the same length of either, with numpy; False (nothing written) for any other list."""
    np = _numpy()
    kinds = set(map(type, value))
    if len(kinds) != 1:
        return False
    kind = kinds.pop()
    if kind in _RUN_TAGS:
        tag, dtype = _RUN_TAGS[kind]
        try:
            values = np.array(value, dtype=dtype)
        except OverflowError:
            return False
        record = np.empty(len(value), dtype=[("t", "u1"), ("v", dtype)])
        record["t"] = tag
        record["v"] = values
        out.append(record.tobytes())
        return True
    if kind is list:
        lengths = set(map(len, value))
        if len(lengths) != 1:
            return False
        width = lengths.pop()
        inner = set(map(type, itertools.chain.from_iterable(value)))
        if len(inner) != 1 or width == 0:
            return False
        inner = inner.pop()
        if inner not in _RUN_TAGS:
            return False
        tag, dtype = _RUN_TAGS[inner]
        try:
            values = np.array(value, dtype=dtype)
        except OverflowError:
            return False
        record = np.empty(len(value), dtype=[("h", "u1"), ("n", "<u4"), ("r", [("t", "u1"), ("v", dtype)], (width,))])
        record["h"] = ord("l")
        record["n"] = width
        record["r"]["t"] = tag
        record["r"]["v"] = values
        out.append(record.tobytes())
        return True
    return False


def _decode_run(reader, count):
    """The items of a list or tuple written as one run (see _encode_run), read with numpy at once;
    None (nothing read) when the bytes ahead are not such a run."""
    data, at = reader.data, reader.at
    if at >= len(data):
        return None
    np = _numpy()
    first = data[at]
    for kind, (tag, dtype) in _RUN_TAGS.items():
        if first == tag:
            size = count * 9
            if at + size > len(data):
                return None
            record = np.frombuffer(data[at:at + size], dtype=[("t", "u1"), ("v", dtype)])
            if not (record["t"] == tag).all():
                return None
            reader.at = at + size
            return np.ascontiguousarray(record["v"]).tolist()
    if first == ord("l") and at + 6 <= len(data):
        width = struct.unpack("<I", data[at + 1:at + 5])[0]
        inner = data[at + 5]
        for kind, (tag, dtype) in _RUN_TAGS.items():
            if inner != tag or width == 0:
                continue
            size = count * (5 + 9 * width)
            if at + size > len(data):
                return None
            record = np.frombuffer(data[at:at + size], dtype=[("h", "u1"), ("n", "<u4"), ("r", [("t", "u1"), ("v", dtype)], (width,))])
            if not ((record["h"] == ord("l")).all() and (record["n"] == width).all() and (record["r"]["t"] == tag).all()):
                return None
            reader.at = at + size
            return np.ascontiguousarray(record["r"]["v"]).tolist()
    return None


def encode(value):
    """The payload bytes of one value (no header): raises EncodingError naming what it cannot carry."""
    out = []
    _encode(value, out, 0)
    return b"".join(out)


def pack(value, capacity):
    """The value as a tensor of exactly `capacity` bytes: header, payload, zeros."""
    payload = encode(value)
    size = HEADER + len(payload)
    if size > capacity:
        raise EncodingError("the value takes %d bytes encoded, more than the %d this binding holds" % (size, capacity))
    out = bytearray(capacity)
    out[0:HEADER] = MAGIC + struct.pack("<Q", len(payload))
    out[HEADER:size] = payload
    return out


class _Reader:
    def __init__(self, data):
        self.data = data
        self.at = 0

    def take(self, n):
        end = self.at + n
        if end > len(self.data):
            raise EncodingError("the encoded value ends early (at byte %d of %d)" % (self.at, len(self.data)))
        part = self.data[self.at:end]
        self.at = end
        return part

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u8(self):
        return self.take(1)[0]


def _decode(reader, depth):
    if depth > MAX_DEPTH:
        raise EncodingError("nested more than %d levels deep" % MAX_DEPTH)
    tag = reader.take(1)
    if tag == b"N":
        return None
    if tag == b"F":
        return False
    if tag == b"T":
        return True
    if tag == b"i":
        return int.from_bytes(reader.take(8), "little", signed=True)
    if tag == b"I":
        return int.from_bytes(reader.take(reader.u32()), "little", signed=True)
    if tag == b"f":
        return struct.unpack("<d", reader.take(8))[0]
    if tag == b"c":
        real, imag = struct.unpack("<dd", reader.take(16))
        return complex(real, imag)
    if tag == b"s":
        try:
            return bytes(reader.take(reader.u32())).decode("utf-8", "surrogatepass")
        except UnicodeDecodeError as error:
            raise EncodingError("a string that is not UTF-8 (%s)" % error.reason) from None
    if tag == b"b":
        return bytes(reader.take(reader.u32()))
    if tag == b"y":
        return bytearray(reader.take(reader.u32()))
    if tag in (b"l", b"t"):
        count = reader.u32()
        items = _decode_run(reader, count) if count >= FAST else None
        if items is None:
            items = [_decode(reader, depth + 1) for _ in range(count)]
        return items if tag == b"l" else tuple(items)
    if tag == b"d":
        result = {}
        for _ in range(reader.u32()):
            key = _decode(reader, depth + 1)
            try:
                result[key] = _decode(reader, depth + 1)
            except TypeError:
                raise EncodingError("a dict key of type %s" % type(key).__name__) from None
        return result
    if tag in (b"S", b"Z"):
        try:
            items = set(_decode(reader, depth + 1) for _ in range(reader.u32()))
        except TypeError as error:
            raise EncodingError("a set item that cannot be hashed (%s)" % error) from None
        return items if tag == b"S" else frozenset(items)
    if tag in (b"a", b"g"):
        np = _numpy()
        text = bytes(reader.take(reader.u8())).decode("ascii", "replace")
        try:
            dtype = np.dtype(text)
        except TypeError:
            raise EncodingError("an unknown dtype %r" % text) from None
        if dtype.kind not in DTYPE_KINDS or dtype.fields is not None or _dtype_text(dtype).decode("ascii") != text:
            raise EncodingError("a dtype %r the encoding does not carry" % text)
        if tag == b"g":
            return np.frombuffer(reader.take(dtype.itemsize), dtype=dtype)[0]
        shape = tuple(struct.unpack("<Q", reader.take(8))[0] for _ in range(reader.u8()))
        count = 1
        for dim in shape:
            count *= dim
        data = reader.take(count * dtype.itemsize)
        return np.frombuffer(data, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="), copy=True)
    if tag == b"x":
        name = bytes(reader.take(reader.u8())).decode("ascii", "replace")
        if name not in SPARSE:
            raise EncodingError("a sparse class %r the encoding does not carry" % name)
        shape = tuple(struct.unpack("<Q", reader.take(8))[0] for _ in range(2))
        parts = []
        for _ in range(3):
            if bytes(reader.take(1)) != b"a":
                raise EncodingError("a sparse matrix whose parts are not arrays")
            reader.at -= 1
            parts.append(_decode(reader, depth + 1))
        cls = _sparse_class(name)
        if cls is None:
            raise EncodingError("scipy here has no sparse class %r" % name)
        try:
            if name.startswith("coo"):
                matrix = cls((parts[0], (parts[1], parts[2])), shape=shape)
                matrix.row, matrix.col = parts[1], parts[2]
            else:
                matrix = cls((parts[0], parts[1], parts[2]), shape=shape)
                matrix.indices, matrix.indptr = parts[1], parts[2]
            matrix.data = parts[0]
        except (ValueError, TypeError) as error:
            raise EncodingError("a sparse matrix that does not hold together (%s)" % error) from None
        return matrix
    raise EncodingError("an unknown tag %r at byte %d" % (tag, reader.at - 1))


def decode(payload):
    """The value of payload bytes (no header); every byte must belong to it."""
    reader = _Reader(memoryview(payload).cast("B"))
    value = _decode(reader, 0)
    if reader.at != len(reader.data):
        raise EncodingError("%d bytes follow the encoded value" % (len(reader.data) - reader.at))
    return value


def unpack(tensor):
    """The value a tensor of `pack` holds (bytes, memoryview or a u8 numpy array)."""
    data = memoryview(tensor)
    if data.ndim != 1 or data.format != "B":
        data = memoryview(bytes(data))
    if len(data) < HEADER or bytes(data[: len(MAGIC)]) != MAGIC:
        raise EncodingError("not an encoded value (it does not start with %r)" % MAGIC.decode("ascii"))
    size = struct.unpack("<Q", data[len(MAGIC):HEADER])[0]
    if HEADER + size > len(data):
        raise EncodingError("the header says %d bytes, the tensor holds %d" % (size, len(data) - HEADER))
    if _numpy().frombuffer(data[HEADER + size:], dtype="u1").any():
        raise EncodingError("bytes after the encoded value are not zeros")
    return decode(data[HEADER:HEADER + size])
