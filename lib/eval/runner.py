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
    harness -> runner  {"op": "case", "i": I, "n": NONCE} + the arguments' bytes, in signature order
                       (n: not under --count-instructions; every answer echoes it)
    runner -> harness  {"ev": "answer", "i": I, "status": "ok", "sizes": [...], "note": ...}
                       + the results' bytes (sizes[k] is the byte size of result k,
                       0 when it could not be converted; the note says why)
                     | {"ev": "answer", "i": I, "status": "crashed", "note": ..., "error": TYPE, "where": [...]}
                       (where: [{"file", "line"}] of the solution's own frames, innermost last,
                       at most 3, files relative to the solution's folder; "failed" has them too)
    harness -> runner  {"op": "null", "i": I} + the arguments' bytes (not under --count-instructions)
    runner -> harness  {"ev": "answer", "i": I, "status": "ok", ...} + zeros of every result's shape
                       (run() is not called: the harness times what delivering a case costs)
    harness -> runner  {"op": "end"}   (free(state), then exit 0)

SIG = {"args": [{"name", "type", "shape"}], "results": [...]}, every dimension
evaluated at the point. With "interface": "solve" in SIG (a plan with
interface = "solve"), the solution provides AlgoTune's solve(problem) instead
(solve_interface): the one u8 argument is decoded with objects.py, beside this
file, and solve's return value encoded into the one u8 result. The solution module provides init(point) -> state (not
timed, sees no data), run(state, inputs) -> outputs and optionally
free(state). inputs maps each argument name to a writable numpy array;
outputs is a dict of result name -> value (a bare value when there is one
result). A value must be a numpy array, a numpy or Python scalar, or a
(nested) list or tuple of them; it is converted to plain bytes here, before the
answer is sent, so any work hidden in a conversion is inside the timed span.

With --count-instructions (the instructions clock: the harness starts the
runner under valgrind's callgrind), a case's count opens before any byte of it
exists in this process and closes once its answer is out of it. The runner
sends every message after which the harness sends a case (ready, each answer)
but for its last byte, and sends that byte only after the dump that opens the
next count: after ready and the warm-up answer, a garbage collection, then
callgrind's costs zeroed and the dump "open-<k>" (one native call); after a
timed case's answer, the dump "case-<i>/<hh>" (hh: that held byte, which the
harness checks), whose part is case i's count and which opens the next one.

Exit 0 after "end", 3 when the solution could not be imported or init()
raised, 4 on a protocol error, 5 when numpy is missing.
"""
import gc
import json
import os
import socket
import sys
import traceback

# Captured before any solution code runs (they may rebind the modules' names).
_collect = gc.collect
_freeze = gc.freeze
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


class Counter:
    """Callgrind's client requests from pure Python (amd64): valgrind's request
    sequence in an executable page, called through ctypes; built before any
    solution code loads. Natively the sequence does nothing.

    open() zeroes the costs and dumps in one native call, so the part it writes
    holds the few instructions between the two requests, nothing of Python."""

    ONE = bytes.fromhex(                                # one(args): a request on args
        "4889f8" "31d2"                                 # mov rax,rdi (the request); xor edx,edx (default)
        "48c1c703" "48c1c70d" "48c1c73d" "48c1c733"     # rol rdi,3/13/61/51: valgrind's magic preamble
        "4887db" "4889d0" "c3")                         # xchg rbx,rbx (the request); mov rax,rdx; ret
    TWO = bytes.fromhex(                                # two(args, args2): a request on each, back to back
        "4889f8" "31d2" "48c1c703" "48c1c70d" "48c1c73d" "48c1c733" "4887db"
        "4889f0" "31d2" "48c1c703" "48c1c70d" "48c1c73d" "48c1c733" "4887db"
        "4889d0" "c3")
    ZERO_STATS = (ord("C") << 24 | ord("T") << 16) + 1
    DUMP_STATS_AT = (ord("C") << 24 | ord("T") << 16) + 3
    START_INSTRUMENTATION = (ord("C") << 24 | ord("T") << 16) + 4
    CLO_CHANGE = 0x1203

    def __init__(self):
        import ctypes
        import mmap
        self.ctypes = ctypes
        self.page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        self.page.write(self.ONE + self.TWO)
        base = ctypes.addressof(ctypes.c_char.from_buffer(self.page))
        self.one = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(base)
        self.two = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p)(base + len(self.ONE))
        self.first = (ctypes.c_uint64 * 6)()
        self.second = (ctypes.c_uint64 * 6)()
        self.first_at = ctypes.addressof(self.first)
        self.second_at = ctypes.addressof(self.second)
        # One buffer for every label: a fresh ctypes buffer a call makes a fresh array type (tens of
        # thousands of instructions inside the counted span).
        self.text = (ctypes.c_char * 256)()
        self.text_at = ctypes.addressof(self.text)
        self.opened = 0

    def open(self):
        """Zero the costs and dump "open-<k>": whatever ran before is not counted. The
        first time, valgrind is first asked to log every client request from then on
        (--trace-sched at verbosity 3 writes a line before it runs one), so the
        requests of the timed cases show; the solution's import and init() are not
        traced (a library's start-up would flood the log), nor counted."""
        if not self.opened:
            # valgrind starts with instrumentation off (--instr-atstart=no): the interpreter's
            # start, numpy's import and init() run at a fraction of callgrind's cost, and are
            # never counted anyway. It is switched on here, once, before the first count opens
            # and before requests are traced; any later switch is the solution's (readCounts).
            self.first[:] = [self.START_INSTRUMENTATION, 0, 0, 0, 0, 0]
            self.one(self.first_at)
            for option in (b"--trace-sched=yes", b"-v"):
                self.text.value = option
                self.first[:] = [self.CLO_CHANGE, self.text_at, 0, 0, 0, 0]
                self.one(self.first_at)
        self.text.value = b"open-%d" % self.opened
        self.opened += 1
        self.first[:] = [self.ZERO_STATS, 0, 0, 0, 0, 0]
        self.second[:] = [self.DUMP_STATS_AT, self.text_at, 0, 0, 0, 0]
        self.two(self.first_at, self.second_at)

    def close(self, label):
        """Dump the costs since the last open() under `label` (ASCII)."""
        self.text.value = label
        self.first[:] = [self.DUMP_STATS_AT, self.text_at, 0, 0, 0, 0]
        self.one(self.first_at)


def note_of(error):
    text = "%s: %s" % (type(error).__name__, error)
    return text if len(text) <= 500 else text[:497] + "..."


# Where an exception was raised, in the solution's own files: at most this many frames (the innermost).
MAX_FRAMES = 3
_traceback_of = BaseException.__traceback__.__get__   # the real traceback, whatever a subclass defines
_abspath = os.path.abspath
_SYNTAX = (SyntaxError, IndentationError, TabError)


def frames_of(error, folder):
    """[{"file", "line"}] of the frames of `error`'s traceback in files under `folder` (the solution's
    folder), outermost first, at most MAX_FRAMES (the innermost), each file relative to `folder`. A
    SyntaxError in such a file adds its own line. Only the traceback's C objects are read: no code of
    the solution runs. The harness takes no frame on trust: it keeps those that name a line of a file
    of the solution as evaluated, and reads the line's text itself."""
    prefix = folder.rstrip("/") + "/"
    frames = []

    def add(filename, line):
        if type(filename) is not str or type(line) is not int or line < 1:
            return
        path = _abspath(filename) if filename.startswith("/") else ""
        if path.startswith(prefix) and len(path) - len(prefix) <= 200:
            frames.append({"file": path[len(prefix):], "line": line})
            del frames[:-MAX_FRAMES]

    try:
        tb = _traceback_of(error)
        while tb is not None:
            add(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
            tb = tb.tb_next
        if type(error) in _SYNTAX:
            add(error.filename, error.lineno)
    except Exception:  # noqa: BLE001 - where is a courtesy: a failure to say it leaves it out
        pass
    return frames


def failure_of(error, folder):
    """The fields of a crash's message: the note, the exception's type name and where it was raised."""
    return {"note": note_of(error), "error": type(error).__name__[:100], "where": frames_of(error, folder)}


class Channel:
    """Framed messages on the socket the harness holds the other end of.

    Counting instructions (`np` given), every read lies inside a counted span, so
    the number of calls must not depend on how the bytes happen to arrive: a
    header is read in one call for its first 13 bytes (no message of the harness
    is shorter: {"op":"end"}), 7 more for a case header (never shorter than 20:
    {"op":"case","i":0}), then a byte at a time; a payload in one call that waits
    for all of it, into memory numpy does not clear first."""

    def __init__(self, fd, np=None):
        self.fd = fd
        self.buffer = bytearray()
        self.np = np
        self.socket = socket.socket(fileno=os.dup(fd)) if np is not None else None

    def send(self, header, parts=()):
        """A header line, then the payload: a bytes-like object or a list of them."""
        self._write_all((_dumps(header) + "\n").encode())
        for part in _chunks(parts):
            self._write_all(part)

    def send_holding(self, header, parts=()):
        """send() but for the message's last byte, which is returned: the harness
        sends nothing more until release() sends it."""
        chunks = [(_dumps(header) + "\n").encode(), *_chunks(parts)]
        last = memoryview(chunks.pop())
        for chunk in chunks:
            self._write_all(chunk)
        self._write_all(last[:-1])
        return last[-1]

    def release(self, last):
        self._write_all(bytes((last,)))

    def _write_all(self, data):
        view = memoryview(data)
        while view:
            view = view[_write(self.fd, view):]

    def _fill(self):
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            raise EOFError("the harness closed the channel")
        self.buffer += chunk

    def header(self):
        if self.socket is not None:
            line = self._exact_line()
            # The case header read in a counted span, without json's detours (the same dict either way).
            if line.startswith(b'{"op":"case","i":') and line.endswith(b"}\n") and line[17:-2].lstrip(b"-").isdigit():
                return {"op": "case", "i": int(line[17:-2])}
            return _loads(line)
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self.buffer[:newline])
                del self.buffer[:newline + 1]
                return _loads(line)
            if len(self.buffer) > 1 << 16:
                raise ValueError("header line too long")
            self._fill()

    def _exact_line(self):
        line = self._exact(bytearray(13))
        if line.startswith(b'{"op":"case",'):
            line += self._exact(bytearray(7))
        while line[-1] != 10:
            if len(line) > 1 << 16:
                raise ValueError("header line too long")
            line += self._exact(bytearray(1))
        if line.index(b"\n") != len(line) - 1:
            raise ValueError("a message shorter than the runner reads at once")
        return line

    def _exact(self, data):
        """Fill `data` from the socket, in one call unless a signal interrupts it."""
        view = memoryview(data).cast("B")
        size = len(view)
        have = 0
        while have < size:
            got = self.socket.recv_into(view[have:], size - have, socket.MSG_WAITALL)
            if got == 0:
                raise EOFError("the harness closed the channel")
            have += got
        return data

    def payload(self, size):
        """Exactly `size` bytes, in a writable buffer."""
        if self.socket is not None:
            return self._exact(self.np.empty(size, dtype=self.np.uint8)) if size else bytearray()
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


def _chunks(parts):
    """The non-empty pieces of a payload given as one bytes-like object or a list of them."""
    if isinstance(parts, (bytes, bytearray, memoryview)):
        parts = [parts]
    return [part for part in parts if len(part)]


def element_count(shape):
    count = 1
    for dim in shape:
        count *= dim
    return count


def input_layout(np, args):
    """Per argument: its name, little-endian dtype, element count, byte offset and
    shape in the delivered bytes, and the total byte size (once per run)."""
    layout = []
    offset = 0
    for arg in args:
        dtype = np.dtype(DTYPES[arg["type"]])
        count = element_count(arg["shape"])
        layout.append((arg["name"], dtype, count, offset, tuple(arg["shape"])))
        offset += count * dtype.itemsize
    return layout, offset


def inputs_from(np, data, layout):
    inputs = {}
    for name, dtype, count, offset, shape in layout:
        array = np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(shape)
        inputs[name] = array if dtype.isnative else array.astype(dtype.newbyteorder("="))
    return inputs


def is_plain(np, value):
    """A value the runner converts itself: no user type can run code during conversion."""
    if type(value) is np.ndarray or isinstance(value, np.generic) or type(value) in PLAIN[:3]:
        return True
    if type(value) in PLAIN[3:]:
        return all(is_plain(np, item) for item in value)
    return False


def convert(np, value, result):
    """Return (bytes, None) or (None, note) for one result value (bytes: a flat view of a contiguous array)."""
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
            # The rule is about the dtype's kind, whatever the values: a float array is refused even when every value is whole.
            return None, "result %r: dtype %s is a float kind, which an integer result (%s) does not accept: return an integer array, e.g. .astype(np.int64)" % (name, array.dtype, result["type"])
        if array.size:
            info = np.iinfo(dtype)
            low, high = int(array.min()), int(array.max())
            if low < info.min or high > info.max:
                return None, "result %r: values out of range for %s" % (name, result["type"])
    # The bytes are sent from the array itself: no copy (under callgrind every byte a copy moves is an instruction).
    return memoryview(np.ascontiguousarray(array, dtype=dtype)).cast("B"), None


def keys_of(outputs):
    """The keys of run()'s dict as a short text. Only exact str keys are shown: anything else
    is named by type alone, so no method of the solution's own objects runs here."""
    keys = list(outputs)[:8]
    shown = [repr(key[:40]) if type(key) is str else "<%s key>" % type(key).__name__ for key in keys]
    more = ", ..." if len(outputs) > len(keys) else ""
    return "{" + ", ".join(shown) + more + "}" if shown else "an empty dict"


def answer_of(np, outputs, results):
    """(sizes, parts, note) for run()'s return value: parts are the results' bytes, in order."""
    if outputs is None:
        return [0] * len(results), [], "run() returned None"
    if type(outputs) is not dict:
        if len(results) == 1:
            outputs = {results[0]["name"]: outputs}
        else:
            return [0] * len(results), [], "run() returned %s, expected a dict of results" % type(outputs).__name__
    sizes, parts, notes = [], [], []
    for result in results:
        if result["name"] not in outputs:
            data, note = None, "result %r missing: run() returned %s" % (result["name"], keys_of(outputs))
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
    return sizes, parts, ("; ".join(notes) if notes else None)


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


def load_objects():
    """arbor's object encoding (objects.py, beside this file): loaded before any solution code runs."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("arbor_objects", os.path.join(os.path.dirname(os.path.abspath(__file__)), "objects.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def solve_interface(np, objects, module, signature):
    """(run, state) for a plan with interface = "solve": the solution's solve(problem), AlgoTune's
    signature, as a class Solver with a solve(self, problem) method (made once, not timed) or a
    module-level solve(problem). The single argument is decoded to the problem and what solve
    returns is encoded into the single result, both inside the timed span: the answer leaves this
    process as bytes, so no object of the solution's reaches the verifier."""
    solver_class = getattr(module, "Solver", None)
    if isinstance(solver_class, type):
        solve = getattr(solver_class(), "solve", None)
    else:
        solve = getattr(module, "solve", None)
    if not callable(solve):
        raise AttributeError("the solution defines neither a class Solver with a solve(self, problem) method nor a solve(problem) function")
    (arg,), (result,) = signature["args"], signature["results"]
    name, capacity, out = arg["name"], element_count(result["shape"]), result["name"]

    def run(_state, inputs):
        answer = solve(objects.unpack(inputs[name]))
        try:
            data = objects.pack(answer, capacity)
        except objects.EncodingError as error:
            raise AnswerNotCarried("solve() returned %s" % error) from None
        return {out: np.frombuffer(data, dtype=np.uint8)}

    return run, None


class AnswerNotCarried(Exception):
    """solve() returned what the object encoding cannot carry (the solution's fault, a failed case)."""


def pin(cpu):
    """Move every thread of this process to one CPU (before any solution code loads)."""
    try:
        threads = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    for tid in threads:
        os.sched_setaffinity(tid, {cpu})


def serve(channel, np, solution_path, counter=None):
    # Sent before the point is known and any solution code is imported: python, numpy and the
    # runner work. The harness may start a run ahead of its turn; it then waits here, idle.
    channel.send({"ev": "started", "python": sys.executable, "numpy": np.__version__})
    hello = channel.header()
    if hello.get("op") != "hello":
        raise ValueError("expected hello, got %r" % hello.get("op"))
    point, signature = hello["point"], hello["signature"]
    if hello.get("cpu") is not None:
        pin(int(hello["cpu"]))
    layout, arg_bytes = input_layout(np, signature["args"])
    folder = os.path.dirname(os.path.abspath(solution_path))
    objects = load_objects() if signature.get("interface") == "solve" else None
    try:
        module = load_solution(os.path.abspath(solution_path))
        if objects is not None:
            run, state = solve_interface(np, objects, module, signature)
        else:
            run = getattr(module, "run", None)
            if not callable(run):
                raise AttributeError("the solution defines no run(state, inputs) function")
            init = getattr(module, "init", None)
            state = init(dict(point)) if callable(init) else None
    except BaseException as error:  # noqa: BLE001 - SystemExit from a solution is a failure too
        traceback.print_exc()
        channel.send({"ev": "failed", **failure_of(error, folder)})
        return 3
    if counter is None:
        channel.send({"ev": "ready"})
    else:
        opening(channel, counter, channel.send_holding({"ev": "ready"}))
    results = signature["results"]
    # A null case's answer: zeros of every result's shape, converted and sent like run()'s.
    null_outputs = {r["name"]: np.zeros(tuple(r["shape"]), dtype=np.dtype(DTYPES[r["type"]])) for r in results}
    while True:
        request = channel.header()
        if request.get("op") == "end":
            break
        if request.get("op") == "null" and counter is None:
            # The delivery alone: the inputs read and wrapped, a zero answer converted and sent;
            # run() is not called. The harness times these in the reference's runs.
            inputs = inputs_from(np, channel.payload(arg_bytes), layout)
            sizes, parts, note = answer_of(np, null_outputs, results)
            channel.send({"ev": "answer", "i": request["i"], "n": request.get("n"), "status": "ok", "sizes": sizes, "note": note}, parts)
            del inputs
            continue
        if request.get("op") != "case":
            raise ValueError("expected case or end, got %r" % request.get("op"))
        i = request["i"]
        inputs = inputs_from(np, channel.payload(arg_bytes), layout)
        try:
            sizes, parts, note = answer_of(np, run(state, inputs), results)
            answer = ({"ev": "answer", "i": i, "status": "ok", "sizes": sizes, "note": note}, parts)
        except BaseException as error:  # noqa: BLE001
            answer = ({"ev": "answer", "i": i, "status": "crashed", **failure_of(error, folder)}, [])
        if "n" in request:
            # The case's nonce, echoed: the harness takes no answer written before the case arrived.
            answer[0]["n"] = request["n"]
        if counter is None:
            channel.send(*answer)
            del inputs, answer
            continue
        del inputs
        last = channel.send_holding(*answer)
        del answer
        if i < 0:
            opening(channel, counter, last)
            continue
        # The answer is out of the process but for one byte, which the label records; the same dump
        # opens the next case's count, which the harness can send once it has that byte.
        counter.close(b"case-%d/%02x" % (i, last))
        channel.release(last)
    free = getattr(module, "free", None)
    if callable(free):
        try:
            free(state)
        except BaseException:  # noqa: BLE001 - cleanup failures do not change verdicts
            pass
    return 0


def opening(channel, counter, last):
    """Counting instructions, after ready and after the warm-up case: open the
    first counted span, then let the harness send the next case (it waits for
    `last`, the final byte of the message it got).

    A full collection first resets the collector's allocation counts, so the
    collections that fall inside the timed cases do not depend on what init() and
    the warm-up left; freezing the survivors keeps those collections short (only
    what the cases allocate is traversed). None of it is counted: the costs are
    zeroed after it."""
    _collect()
    _freeze()
    counter.open()
    channel.release(last)


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
    except ImportError as error:
        # "No module named 'numpy'" is a missing numpy; anything else (a library numpy loads) is said as it is.
        # numpy's own message runs over many lines; its last one names the cause.
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        cause = lines[-1] if lines else type(error).__name__
        sys.stderr.write("runner.py: numpy cannot be imported by %s: %s: %s\n" % (sys.executable, type(error).__name__, cause[:300]))
        return 5
    channel = Channel(fd, np if count else None)
    try:
        return serve(channel, np, solution, Counter() if count else None)
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
