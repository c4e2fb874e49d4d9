"""Runs a bundle's Python entry points for arbor: one process per make or verify (per eval in an eval).

arbor starts ``python3 -I -B host.py`` in the bundle's folder and talks to it over stdin/stdout in
frames: a 4-byte little-endian length, a JSON header, then the raw little-endian bytes of each
tensor the header lists (``"tensors": [{"name", "type", "shape", "bytes"}]``), in order. Each
request gets exactly one reply, ``{"ok": true, ...}`` or ``{"ok": false, "error": {...}}``.
Authored code's own prints go to stderr: stdout carries only the frames. See lib/bundle/README.md,
"Python entry points".
"""

import importlib.util
import json
import math
import os
import struct
import sys
import traceback
import warnings

# Never write __pycache__ into the bundle (-B says so too): a bundle folder may be read-only or tamper-checked.
sys.dont_write_bytecode = True


def _die_with_parent():
    """On Linux, be killed when arbor's process ends, however it ends: an eval stops this process between its
    calls (SIGSTOP), and a stopped process would never read the end of its stdin."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        # PR_SET_PDEATHSIG. Had arbor ended before this line, this process was never stopped: it reads the end of
        # its stdin and exits.
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError, ValueError):
        pass


_die_with_parent()


def _keep_freed_memory():
    """With glibc, keep freed memory in the heap instead of giving it back to the kernel after every array.

    By default glibc maps arrays over 32 MiB afresh and trims the heap's top after large frees, so each new
    temporary array is page-faulted in again: fft_convolve2d's oracle spent 66-123 ms a case at N = 480-512,
    most of it in page faults, and 13-17 ms with these settings (2048: 930 ms, 390 ms). Arrays below 128 MiB
    come from the heap, and up to 256 MiB of freed heap is kept. Outputs are the same bytes: only where memory
    comes from changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        m_trim_threshold, m_mmap_threshold = -1, -3
        # Both or neither: setting either turns glibc's dynamic thresholds off, and a trim threshold alone leaves
        # the mmap threshold at 128 KiB, which maps every array afresh (260 ms a case above).
        if libc.mallopt(m_mmap_threshold, 128 << 20):
            libc.mallopt(m_trim_threshold, 256 << 20)
    except (OSError, AttributeError, ValueError):
        pass


_keep_freed_memory()

# The protocol's pipes, kept away from authored code: its prints go to stderr, stdin reads nothing.
_IN = os.fdopen(os.dup(0), "rb")
_OUT = os.fdopen(os.dup(1), "wb")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
os.dup2(2, 1)
sys.stdout = sys.stderr

try:
    import numpy as np
except ImportError:
    np = None

DTYPES = {
    "i8": "<i1",
    "i16": "<i2",
    "i32": "<i4",
    "i64": "<i8",
    "u8": "<u1",
    "u16": "<u2",
    "u32": "<u4",
    "u64": "<u8",
    "f32": "<f4",
    "f64": "<f8",
}
MAX_SAFE = 2**53 - 1


class ContractError(Exception):
    """What an entry point returned breaks the bundle's contract (types, names, shapes)."""


def read_exactly(n):
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = _IN.readinto(view[got:])
        if not k:
            raise EOFError
        got += k
    return buf


def read_frame():
    head = _IN.read(4)
    if len(head) < 4:
        raise EOFError
    header = json.loads(read_exactly(struct.unpack("<I", head)[0]).decode("utf-8"))
    arrays = {}
    for t in header.get("tensors", []):
        buf = read_exactly(t["bytes"])
        array = np.frombuffer(buf, dtype=DTYPES[t["type"]])
        arrays.setdefault(t["group"], {})[t["name"]] = array.reshape(t["shape"])
    return header, arrays


def write_frame(header, arrays=()):
    header = dict(header)
    header["tensors"] = [{"name": name, "bytes": a.nbytes} for name, a in arrays]
    data = json.dumps(header).encode("utf-8")
    _OUT.write(struct.pack("<I", len(data)))
    _OUT.write(data)
    for _, a in arrays:
        if a.nbytes:
            _OUT.write(memoryview(a).cast("B"))
    _OUT.flush()


# -- authored modules --------------------------------------------------------------------------

_modules = {}
_stream_class = None


def stream_class(here):
    """arbor's Stream, importable by bundles as ``arbor_stream``."""
    global _stream_class
    if _stream_class is None:
        spec = importlib.util.spec_from_file_location("arbor_stream", os.path.join(here, "stream.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules["arbor_stream"] = module
        spec.loader.exec_module(module)
        _stream_class = module.Stream
    return _stream_class


def load(file, function):
    module = _modules.get(file)
    if module is None:
        name = "_arbor_bundle_" + os.path.splitext(os.path.basename(file))[0]
        spec = importlib.util.spec_from_file_location(name, file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[file] = module
    fn = getattr(module, function, None)
    if not callable(fn):
        raise ContractError(f"{os.path.basename(file)} must define a function {function}(...)")
    return fn


# -- results -------------------------------------------------------------------------------------


def describe(value):
    if isinstance(value, np.ndarray):
        return f"a {value.dtype} array of shape {value.shape}"
    return f"a {type(value).__name__}"


def cast(name, value, type, shape):
    """value as a C-contiguous little-endian array of element type ``type``, exactly, or a ContractError."""
    dtype = np.dtype(DTYPES[type])
    try:
        array = np.asarray(value)
    except Exception as error:  # ragged lists and the like
        raise ContractError(f"returned {name} as {describe(value)} that is not an array ({error})") from None
    if array.dtype.kind not in "biuf":
        raise ContractError(f"returned {name} as {describe(array)}, expected numbers of type {type}")
    size = math.prod(shape)
    if array.shape != tuple(shape) and not (array.ndim == 1 and array.size == size) and not (not shape and array.size == 1):
        raise ContractError(f"returned {name} with shape {array.shape}, expected {tuple(shape)} (or {size} values in row-major order)")
    if array.dtype != dtype:
        lossy = first_lossy(array, dtype)
        if lossy is not None:
            k, was, became = lossy
            raise ContractError(
                f"returned {name} as {array.dtype}, which does not cast exactly to {type}: element {k} is {was!r}, "
                f"which {type} holds as {became!r}; return values {type} holds (or cast with astype yourself)"
            )
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            array = array.astype(dtype)
    return np.ascontiguousarray(array, dtype=dtype).reshape(-1)


def first_lossy(array, dtype):
    """(index, value, cast value) of the first element that ``dtype`` cannot hold exactly, or None."""
    flat = array.reshape(-1)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = flat.astype(dtype)
        if dtype.kind in "iu" and flat.dtype.kind in "iuf":
            info = np.iinfo(dtype)
            if flat.dtype.kind == "f":
                # Bounds as exact floats: min is -2^(w-1) or 0, max + 1 is a power of two.
                ok = np.isfinite(flat) & (flat == np.floor(flat)) & (flat >= float(info.min)) & (flat < float(info.max) + 1.0)
            else:
                ok = (flat >= info.min) & (flat <= info.max) if flat.dtype.kind == dtype.kind else in_range(flat, info)
        else:
            back = out.astype(flat.dtype)
            ok = back == flat
            if flat.dtype.kind == "f":
                ok |= np.isnan(flat) & np.isnan(out)
    if ok.all():
        return None
    k = int(np.argmin(ok))
    return k, flat[k].item(), out[k].item()


def in_range(flat, info):
    """Signed to unsigned or back: compare as Python ints at the extremes only."""
    lo, hi = int(flat.min()), int(flat.max())
    if lo >= int(info.min) and hi <= int(info.max):
        return np.ones(flat.shape, dtype=bool)
    return np.array([int(info.min) <= int(v) <= int(info.max) for v in flat.tolist()], dtype=bool)


def cast_all(value, bindings):
    """The dict an entry point returned, checked against its bindings and cast; a list of (name, array)."""
    if not isinstance(value, dict):
        raise ContractError(f"returned {describe(value)}, expected a dict {{{', '.join(b['name'] for b in bindings)}}} of numpy arrays")
    names = [b["name"] for b in bindings]
    extra = [k for k in value if k not in names]
    if extra:
        raise ContractError(f"returned unknown binding {', '.join(map(str, extra))}; the signature has {', '.join(names)}")
    out = []
    for b in bindings:
        if b["name"] not in value:
            raise ContractError(f"did not return {b['name']}; the signature has {', '.join(names)}")
        out.append((b["name"], cast(b["name"], value[b["name"]], b["type"], b["shape"])))
    return out


def plain(value, where="verify's result"):
    """A JSON-safe copy: numpy scalars and arrays as Python values, NaN and infinities as null."""
    if isinstance(value, dict):
        return {str(k): plain(v, where) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, where) for v in value]
    if np is not None and isinstance(value, np.ndarray):
        return plain(value.tolist(), where)
    if np is not None and isinstance(value, np.generic):
        return plain(value.item(), where)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) <= MAX_SAFE else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    raise ContractError(f"{where} holds {describe(value)}, expected JSON values (dict, list, str, numbers, bool, None)")


# -- requests ------------------------------------------------------------------------------------


def error_reply(error, bundle_dir):
    message = str(error).split("\n", 1)[0]
    where = None
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if os.path.realpath(frame.filename).startswith(bundle_dir + os.sep):
            where = f"{os.path.relpath(frame.filename, bundle_dir)} line {frame.lineno}"
            break
    kind = "BundleError" if isinstance(error, ContractError) else type(error).__name__
    return {"ok": False, "error": {"type": kind, "message": message, "where": where}}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    bundle_dir = os.path.realpath(os.getcwd())
    while True:
        try:
            header, arrays = read_frame()
        except EOFError:
            break
        op = header["op"]
        try:
            if op == "hello":
                if np is None:
                    raise ModuleNotFoundError("No module named 'numpy'")
                # Helper modules beside the entry points import as they would from the bundle folder.
                sys.path.insert(0, bundle_dir)
                stream_class(here)
                write_frame({"ok": True, "numpy": np.__version__})
            elif op == "load":
                load(header["file"], header["function"])
                write_frame({"ok": True})
            elif op == "generate":
                fn = load(header["file"], "generate")
                stream = stream_class(here)(header["spec"], header["seed"], header["position"])
                value = fn(header["point"], stream)
                write_frame({"ok": True}, cast_all(value, header["bindings"]))
            elif op == "oracle":
                fn = load(header["file"], "oracle")
                value = fn(header["point"], arrays.get("args", {}))
                write_frame({"ok": True}, cast_all(value, header["bindings"]))
            elif op == "verify":
                fn = load(header["file"], "verify")
                value = fn(header["point"], arrays.get("args", {}), arrays.get("expected", {}), arrays.get("actual", {}), header["accept"])
                write_frame({"ok": True, "value": plain(value)})
            else:
                raise ContractError(f"unknown request {op!r}")
        except Exception as error:  # reported to arbor, which names the entry point and the case
            write_frame(error_reply(error, bundle_dir))
    sys.stderr.flush()


if __name__ == "__main__":
    main()
