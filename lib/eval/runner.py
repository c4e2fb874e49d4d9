#!/usr/bin/env python3
"""arbor's protected solution runner (shipped with arbor; benchmarks never copy it).

Runs a Python solution over the cases of one bundle work directory:

    python3 runner.py --solution solution.py --manifest DIR/manifest.json \
        --cases DIR/cases --out OUT --signature SIG.json \
        [--only 0,2,5] [--warmup CASE_DIR] [--events-fd 3]

The solution module provides init(point) -> state (not timed), run(state,
inputs) -> outputs (timed with time.perf_counter, a monotonic clock) and
optionally free(state). inputs maps each argument name to a numpy array of its
element type and shape; outputs maps each result name to anything numpy can
convert to the result's element type and shape.

SIG.json (written by arbor from the bundle's fherma.toml and the point):
    {"args": [{"name": "db", "type": "f32", "shape": [4096, 16]}, ...],
     "results": [{"name": "ids", "type": "i32", "shape": [256, 10]}, ...]}

Writes OUT/NNNNNN/<result>.bin (headerless little-endian row-major) and
rewrites OUT/results.json atomically after every case:
    {"init_s": 0.01, "warmup_s": 0.2,
     "cases": [{"i": 0, "seconds": 0.5, "status": "ok", "note": null}, ...]}
status is "ok" or "crashed"; an output that cannot be converted (wrong shape,
unsafe dtype, missing result) is "ok" with a note and no file, so the bundle's
verify reports the case as having no answer.

--events-fd N: a socket for JSON lines to the harness ({"ev": "ready"|"start"|
"done", ...}) so it can enforce per-case time limits and time each case from
outside; after each "start" the runner reads one line ("go") before run()
(on an fd it cannot read, it sends without waiting).

Exit 0 when every case was attempted, 3 when the solution could not be
imported or init() raised, 4 on bad usage.
"""
import argparse
import json
import os
import sys
import time
import traceback

# Captured before any solution code runs, so a solution rebinding
# time.perf_counter cannot change how its own run() is measured.
_perf = time.perf_counter
_dumps = json.dumps
_replace = os.replace
_write = os.write
_read = os.read

DTYPES = {
    "i8": "<i1", "i16": "<i2", "i32": "<i4", "i64": "<i8",
    "u8": "<u1", "u16": "<u2", "u32": "<u4", "u64": "<u8",
    "f32": "<f4", "f64": "<f8",
}


def note_of(error):
    text = "%s: %s" % (type(error).__name__, error)
    return text if len(text) <= 500 else text[:497] + "..."


class Events:
    """JSON lines to the harness on a socket it holds the other end of.

    After each "start" the runner waits for the harness to answer "go": the
    harness reads its clock before answering, so the span it observes from
    "start" to "done" covers the whole run() call, however late it gets to read
    the socket on a loaded machine. (A solution runs in this process and could
    take the socket over; lib/eval/README.md says what that leaves open.)
    """

    def __init__(self, fd):
        self.fd = fd
        self.answers = fd is not None

    def send(self, **fields):
        if self.fd is None:
            return
        data = (_dumps(fields) + "\n").encode()
        try:
            while data:
                data = data[_write(self.fd, data):]
        except OSError:
            self.fd = None

    def start(self, i):
        self.send(ev="start", i=i)
        if self.fd is None or not self.answers:
            return
        try:
            while _read(self.fd, 1) not in (b"", b"\n"):
                pass
        except OSError:
            # Not a socket (a write-only pipe, say): keep sending, stop waiting for answers.
            self.answers = False


def write_json_atomic(path, data):
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w") as handle:
        handle.write(_dumps(data))
    _replace(tmp, path)


def load_inputs(np, case_dir, args):
    inputs = {}
    for arg in args:
        dtype = np.dtype(DTYPES[arg["type"]])
        shape = tuple(arg["shape"])
        count = 1
        for dim in shape:
            count *= dim
        data = np.fromfile(os.path.join(case_dir, arg["name"] + ".bin"), dtype=dtype)
        if data.size != count:
            raise ValueError("%s.bin has %d elements, expected %d" % (arg["name"], data.size, count))
        inputs[arg["name"]] = data.reshape(shape).astype(dtype.newbyteorder("="), copy=False)
    return inputs


def convert(np, value, result):
    """Return (array, None) or (None, note) for one result value."""
    dtype = np.dtype(DTYPES[result["type"]])
    shape = tuple(result["shape"])
    try:
        array = np.asarray(value)
    except Exception as error:  # noqa: BLE001 - any conversion failure is the solution's
        return None, "result %r: not array-like (%s)" % (result["name"], note_of(error))
    if array.dtype == object:
        return None, "result %r: not a numeric array" % result["name"]
    if array.shape != shape and not (shape == () and array.shape == (1,)):
        return None, "result %r: shape %s, expected %s" % (result["name"], array.shape, shape)
    if array.dtype.kind not in "biuf":
        return None, "result %r: dtype %s is not numeric" % (result["name"], array.dtype)
    target_kind = dtype.kind
    if target_kind in "iu":
        if array.dtype.kind == "f":
            return None, "result %r: dtype %s cannot be converted to %s without rounding" % (
                result["name"], array.dtype, result["type"])
        if array.size:
            info = np.iinfo(dtype)
            low, high = int(array.min()), int(array.max())
            if low < info.min or high > info.max:
                return None, "result %r: values out of range for %s" % (result["name"], result["type"])
    return np.ascontiguousarray(array, dtype=dtype), None


def main(argv):
    parser = argparse.ArgumentParser(prog="runner.py", description="arbor's protected solution runner")
    parser.add_argument("--solution", required=True)
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--cases", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--signature", required=True)
    parser.add_argument("--only", help="comma-separated case indices (default: all)")
    parser.add_argument("--warmup", help="a case folder run once before the timed cases, not timed")
    parser.add_argument("--events-fd", type=int)
    options = parser.parse_args(argv)
    events = Events(options.events_fd)

    try:
        import numpy as np
    except ImportError:
        sys.stderr.write("runner.py: numpy is not installed for %s (pip install numpy)\n" % sys.executable)
        return 5

    with open(options.manifest) as handle:
        manifest = json.load(handle)
    with open(options.signature) as handle:
        signature = json.load(handle)
    point = manifest["point"]
    count = int(manifest["cases"])
    # Sent before any solution code is imported: the harness knows python, numpy
    # and the runner work, whatever the solution does afterwards.
    events.send(ev="started", python=sys.executable, numpy=np.__version__)
    if options.only:
        indices = [int(part) for part in options.only.split(",") if part.strip() != ""]
    else:
        indices = list(range(count))
    for i in indices:
        if i < 0 or i >= count:
            sys.stderr.write("runner.py: case %d out of range 0..%d\n" % (i, count - 1))
            return 4
    os.makedirs(options.out, exist_ok=True)
    results_path = os.path.join(options.out, "results.json")
    report = {"init_s": None, "cases": []}
    write_json_atomic(results_path, report)

    solution_path = os.path.abspath(options.solution)
    try:
        import importlib.util
        sys.path.insert(0, os.path.dirname(solution_path))
        spec = importlib.util.spec_from_file_location("solution", solution_path)
        if spec is None or spec.loader is None:
            raise ImportError("cannot load %s" % solution_path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["solution"] = module
        spec.loader.exec_module(module)
        run = getattr(module, "run", None)
        if not callable(run):
            raise AttributeError("the solution defines no run(state, inputs) function")
        init = getattr(module, "init", None)
        start = _perf()
        state = init(dict(point)) if callable(init) else None
        report["init_s"] = _perf() - start
    except BaseException as error:  # noqa: BLE001 - SystemExit from a solution is a crash too
        report["error"] = note_of(error)
        write_json_atomic(results_path, report)
        sys.stderr.write("runner.py: the solution failed to start: %s\n" % report["error"])
        traceback.print_exc()
        events.send(ev="failed", note=report["error"])
        return 3
    write_json_atomic(results_path, report)
    events.send(ev="ready", init_s=report["init_s"])

    if options.warmup:
        inputs = load_inputs(np, options.warmup, signature["args"])
        events.start(-1)
        start = _perf()
        try:
            run(state, inputs)
        except BaseException:  # noqa: BLE001 - the timed cases will show it
            pass
        report["warmup_s"] = _perf() - start
        events.send(ev="done", i=-1, seconds=report["warmup_s"])

    for i in indices:
        name = "%06d" % i
        inputs = load_inputs(np, os.path.join(options.cases, name), signature["args"])
        record = {"i": i, "seconds": None, "status": "ok", "note": None}
        events.start(i)
        start = _perf()
        try:
            outputs = run(state, inputs)
            record["seconds"] = _perf() - start
        except BaseException as error:  # noqa: BLE001
            record["seconds"] = _perf() - start
            record["status"] = "crashed"
            record["note"] = note_of(error)
            outputs = None
        events.send(ev="done", i=i, seconds=record["seconds"])
        if record["status"] == "ok":
            record["note"] = write_outputs(np, outputs, signature["results"], os.path.join(options.out, name))
        report["cases"].append(record)
        write_json_atomic(results_path, report)
        del inputs, outputs

    free = getattr(module, "free", None)
    if callable(free):
        try:
            free(state)
        except BaseException:  # noqa: BLE001 - cleanup failures do not change verdicts
            pass
    return 0


def write_outputs(np, outputs, results, case_out):
    """Write every convertible result; return a note about the rest (or None)."""
    if outputs is None:
        return "run() returned None"
    if not hasattr(outputs, "get") or not hasattr(outputs, "keys"):
        if len(results) == 1:
            outputs = {results[0]["name"]: outputs}
        else:
            return "run() returned %s, expected a dict of results" % type(outputs).__name__
    notes = []
    os.makedirs(case_out, exist_ok=True)
    for result in results:
        if result["name"] not in outputs:
            notes.append("result %r missing" % result["name"])
            continue
        try:
            array, note = convert(np, outputs[result["name"]], result)
        except Exception as error:  # noqa: BLE001
            array, note = None, "result %r: %s" % (result["name"], note_of(error))
        if array is None:
            notes.append(note)
            continue
        path = os.path.join(case_out, result["name"] + ".bin")
        tmp = path + ".tmp"
        array.tofile(tmp)
        _replace(tmp, path)
    return "; ".join(notes) if notes else None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
