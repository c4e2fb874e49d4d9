#!/usr/bin/env python3
"""arbor's protected solution runner (shipped with arbor; benchmarks never copy it).

    python3 -I runner.py --solution /sandbox/solution/solution.py [--channel-fd 3] [--count-instructions]

The runner holds no case data and keeps no clock: it is the solution's side of
a socket (fd 3) over which the harness, outside the sandbox, delivers each
case's inputs and receives its answer. The harness times a case from the
moment it sends the inputs until the last byte of the answer arrives, so
nothing in this process (which the solution shares) can move the clock, see a
case early or answer for a case it has not been given.

Protocol (JSON header lines, each followed by raw little-endian tensor bytes):

    runner -> harness  {"ev": "started", "python": ..., "numpy": ...}   (numpy loaded; no solution code yet)
    harness -> runner  {"op": "hello", "point": {...}, "signature": SIG, "cpu": N}
                       (cpu, optional: every thread moves to that CPU before the solution loads)
    runner -> harness  {"ev": "ready"} | {"ev": "failed", "note": ...}
    harness -> runner  {"op": "case", "i": I} + the arguments' bytes, in signature order
    runner -> harness  {"ev": "answer", "i": I, "status": "ok", "sizes": [...], "note": ...}
                       + the results' bytes (sizes[k] is the byte size of result k,
                       0 when it could not be converted; the note says why)
                     | {"ev": "answer", "i": I, "status": "crashed", "note": ...}
    harness -> runner  {"op": "end"}   (free(state), then exit 0)

SIG = {"args": [{"name", "type", "shape"}], "results": [...]}, every dimension
evaluated at the point. The solution module provides init(point) -> state (not
timed, sees no data), run(state, inputs) -> outputs and optionally
free(state). inputs maps each argument name to a writable numpy array;
outputs is a dict of result name -> value (a bare value when there is one
result). A value must be a numpy array, a numpy or Python scalar, or a
(nested) list or tuple of them; it is converted to plain bytes here, before the
answer is sent, so any work hidden in a conversion is inside the timed span.

With --count-instructions (the instructions clock: the harness starts the
runner under valgrind's callgrind), each timed case's run() and the conversion
of its answer lie between two labelled callgrind dumps, "pre-<i>" and
"case-<i>"; the harness reads the case's instruction count from the second.

Exit 0 after "end", 3 when the solution could not be imported or init()
raised, 4 on a protocol error, 5 when numpy is missing.
"""
import gc
import json
import os
import sys
import traceback

# Captured before any solution code runs (they may rebind the modules' names).
_collect = gc.collect
_dumps = json.dumps
_loads = json.loads
_write = os.write
_readv = os.readv
_exit = os._exit

DTYPES = {
    "i8": "<i1", "i16": "<i2", "i32": "<i4", "i64": "<i8",
    "u8": "<u1", "u16": "<u2", "u32": "<u4", "u64": "<u8",
    "f32": "<f4", "f64": "<f8",
}

PLAIN = (int, float, bool, list, tuple)


def dump_marker():
    """CALLGRIND_DUMP_STATS_AT(label) from pure Python (amd64): valgrind's client
    request sequence in an executable page, called through ctypes. Built before
    any solution code loads. Natively the sequence does nothing."""
    import ctypes
    import mmap
    code = bytes.fromhex(
        "4889f8" "4889f2"                               # mov rax,rdi (the request); mov rdx,rsi (default)
        "48c1c703" "48c1c70d" "48c1c73d" "48c1c733"     # rol rdi,3/13/61/51: valgrind's magic preamble
        "4887db" "4889d0" "c3")                         # xchg rbx,rbx (the request); mov rax,rdx; ret
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    call = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
    request = (ctypes.c_uint64 * 6)()
    dump_stats_at = (ord("C") << 24 | ord("T") << 16) + 3

    def mark(label):
        text = ctypes.create_string_buffer(label.encode())
        request[:] = [dump_stats_at, ctypes.addressof(text), 0, 0, 0, 0]
        call(ctypes.addressof(request), 0)

    mark.keep = (page, call)  # the page must outlive every call
    return mark


def note_of(error):
    text = "%s: %s" % (type(error).__name__, error)
    return text if len(text) <= 500 else text[:497] + "..."


class Channel:
    """Framed messages on the socket the harness holds the other end of."""

    def __init__(self, fd, exact=False):
        self.fd = fd
        self.buffer = bytearray()
        # Counting instructions: headers are read a byte at a time, so no read takes in part of a
        # payload, and the allocator's state before a case does not depend on how the bytes arrived.
        self.chunk = 1 if exact else 1 << 20

    def send(self, header, payload=b""):
        data = (_dumps(header) + "\n").encode()
        self._write_all(data)
        if payload:
            self._write_all(payload)

    def _write_all(self, data):
        view = memoryview(data)
        while view:
            view = view[_write(self.fd, view):]

    def _fill(self):
        chunk = os.read(self.fd, self.chunk)
        if not chunk:
            raise EOFError("the harness closed the channel")
        self.buffer += chunk

    def header(self):
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self.buffer[:newline])
                del self.buffer[:newline + 1]
                return _loads(line)
            if len(self.buffer) > 1 << 16:
                raise ValueError("header line too long")
            self._fill()

    def payload(self, size):
        """Exactly `size` bytes, as a writable bytearray."""
        data = bytearray(size)
        view = memoryview(data)
        have = min(size, len(self.buffer))
        view[:have] = self.buffer[:have]
        del self.buffer[:have]
        while have < size:
            got = _readv(self.fd, [view[have:]])
            if got == 0:
                raise EOFError("the harness closed the channel mid-case")
            have += got
        return data


def element_count(shape):
    count = 1
    for dim in shape:
        count *= dim
    return count


def inputs_from(np, data, args):
    inputs = {}
    offset = 0
    for arg in args:
        dtype = np.dtype(DTYPES[arg["type"]])
        count = element_count(arg["shape"])
        array = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
        offset += count * dtype.itemsize
        inputs[arg["name"]] = array.reshape(tuple(arg["shape"])).astype(dtype.newbyteorder("="), copy=False)
    return inputs


def is_plain(np, value):
    """A value the runner converts itself: no user type can run code during conversion."""
    if type(value) is np.ndarray or isinstance(value, np.generic) or type(value) in PLAIN[:3]:
        return True
    if type(value) in PLAIN[3:]:
        return all(is_plain(np, item) for item in value)
    return False


def convert(np, value, result):
    """Return (bytes, None) or (None, note) for one result value."""
    dtype = np.dtype(DTYPES[result["type"]])
    shape = tuple(result["shape"])
    name = result["name"]
    if not is_plain(np, value):
        return None, "result %r: %s is not a numpy array, scalar or list" % (name, type(value).__name__)
    try:
        array = np.asarray(value)
    except Exception as error:  # noqa: BLE001 - any conversion failure is the solution's
        return None, "result %r: not array-like (%s)" % (name, note_of(error))
    if array.dtype == object:
        return None, "result %r: not a numeric array" % name
    if array.shape != shape and not (shape == () and array.shape == (1,)):
        return None, "result %r: shape %s, expected %s" % (name, array.shape, shape)
    if array.dtype.kind not in "biuf":
        return None, "result %r: dtype %s is not numeric" % (name, array.dtype)
    if dtype.kind in "iu":
        if array.dtype.kind == "f":
            return None, "result %r: dtype %s cannot be converted to %s without rounding" % (name, array.dtype, result["type"])
        if array.size:
            info = np.iinfo(dtype)
            low, high = int(array.min()), int(array.max())
            if low < info.min or high > info.max:
                return None, "result %r: values out of range for %s" % (name, result["type"])
    return np.ascontiguousarray(array, dtype=dtype).tobytes(), None


def answer_of(np, outputs, results):
    """(sizes, payload, note) for run()'s return value."""
    if outputs is None:
        return [0] * len(results), b"", "run() returned None"
    if type(outputs) is not dict:
        if len(results) == 1:
            outputs = {results[0]["name"]: outputs}
        else:
            return [0] * len(results), b"", "run() returned %s, expected a dict of results" % type(outputs).__name__
    sizes, parts, notes = [], [], []
    for result in results:
        if result["name"] not in outputs:
            data, note = None, "result %r missing" % result["name"]
        else:
            try:
                data, note = convert(np, outputs[result["name"]], result)
            except Exception as error:  # noqa: BLE001
                data, note = None, "result %r: %s" % (result["name"], note_of(error))
        if data is None:
            notes.append(note)
            sizes.append(0)
        else:
            sizes.append(len(data))
            parts.append(data)
    return sizes, b"".join(parts), ("; ".join(notes) if notes else None)


def load_solution(path):
    import importlib.util
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("solution", path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    spec.loader.exec_module(module)
    return module


def pin(cpu):
    """Move every thread of this process to one CPU (before any solution code loads)."""
    try:
        threads = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    for tid in threads:
        os.sched_setaffinity(tid, {cpu})


def serve(channel, np, solution_path, mark=None):
    # Sent before the point is known and any solution code is imported: python, numpy and the
    # runner work. The harness may start a run ahead of its turn; it then waits here, idle.
    channel.send({"ev": "started", "python": sys.executable, "numpy": np.__version__})
    hello = channel.header()
    if hello.get("op") != "hello":
        raise ValueError("expected hello, got %r" % hello.get("op"))
    point, signature = hello["point"], hello["signature"]
    if hello.get("cpu") is not None:
        pin(int(hello["cpu"]))
    arg_bytes = sum(element_count(a["shape"]) * np.dtype(DTYPES[a["type"]]).itemsize for a in signature["args"])
    try:
        module = load_solution(os.path.abspath(solution_path))
        run = getattr(module, "run", None)
        if not callable(run):
            raise AttributeError("the solution defines no run(state, inputs) function")
        init = getattr(module, "init", None)
        state = init(dict(point)) if callable(init) else None
    except BaseException as error:  # noqa: BLE001 - SystemExit from a solution is a failure too
        traceback.print_exc()
        channel.send({"ev": "failed", "note": note_of(error)})
        return 3
    channel.send({"ev": "ready"})
    results = signature["results"]
    while True:
        request = channel.header()
        if request.get("op") == "end":
            break
        if request.get("op") != "case":
            raise ValueError("expected case or end, got %r" % request.get("op"))
        i = request["i"]
        inputs = inputs_from(np, channel.payload(arg_bytes), signature["args"])
        counted = mark is not None and i >= 0
        if counted:
            # A full collection resets the collector's allocation counts: otherwise how the inputs
            # happened to arrive (socket reads) moves the collections inside run(), and the count with them.
            _collect()
            mark("pre-%d" % i)
        try:
            try:
                sizes, payload, note = answer_of(np, run(state, inputs), results)
            finally:
                if counted:
                    mark("case-%d" % i)
        except BaseException as error:  # noqa: BLE001
            channel.send({"ev": "answer", "i": i, "status": "crashed", "note": note_of(error)})
            continue
        channel.send({"ev": "answer", "i": i, "status": "ok", "sizes": sizes, "note": note}, payload)
        del inputs, payload
    free = getattr(module, "free", None)
    if callable(free):
        try:
            free(state)
        except BaseException:  # noqa: BLE001 - cleanup failures do not change verdicts
            pass
    return 0


def main(argv):
    solution, fd, count = None, 3, False
    args = iter(argv)
    for arg in args:
        if arg == "--solution":
            solution = next(args, None)
        elif arg == "--channel-fd":
            fd = int(next(args, "3"))
        elif arg == "--count-instructions":
            count = True
        else:
            sys.stderr.write("runner.py: unknown argument %r\n" % arg)
            return 4
    if not solution:
        sys.stderr.write("runner.py: --solution FILE is required\n")
        return 4
    try:
        import numpy as np
    except ImportError:
        sys.stderr.write("runner.py: numpy is not installed for %s (pip install numpy)\n" % sys.executable)
        return 5
    channel = Channel(fd, exact=count)
    try:
        return serve(channel, np, solution, dump_marker() if count else None)
    except (EOFError, ValueError, KeyError, OSError) as error:
        sys.stderr.write("runner.py: protocol error: %s\n" % note_of(error))
        return 4


if __name__ == "__main__":
    code = main(sys.argv[1:])
    # No interpreter teardown (every module's cleanup, about 20 ms with numpy, and a wait for the
    # solution's non-daemon threads): the harness waits for this exit before the next run starts.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a solution may have closed or replaced them
            pass
    _exit(code)
