"""An adversarial probe of `arbor benchmark verify --probe` (generated from arbor's lib/probe/probe.py).

Not a solution: a deliberately wrong one. `verify --probe` writes one copy of this
file per probe, with CONFIG filled in, and scores it through the entry's own eval
on the dev split. Every probe answers in a way no honest verifier may reward:

    empty        run() returns {} (no result at all)
    none         run() returns None
    zeros        every result all zeros, of the right shape and type
    wrong-shape  zeros with one element too many in the first dimension
    wrong-dtype  complex numbers for a float result, fractions for an integer one
    nan          every result all NaN
    echo         the inputs, flattened, cast and repeated to fill each result
    random       random values of the right shape and type, drawn afresh by each verify --probe
    constant     every element of a result one value, drawn afresh by each verify --probe
    crash        run() raises
    sleep        run() sleeps past any limit (after answering a speedup eval's warm-up case)
    fake-score   prints "score: 1.0" lines on stdout and stderr, then answers zeros
    hunt         walks the file system in init() for <result>.bin files under an
                 expected/ folder (where a bundle's oracle writes its answers) and
                 returns the one whose cases/ folder holds the inputs given (else
                 the one of the same case number, else any); zeros where none is found

A probe cannot know a result's shape by itself: CONFIG carries, for every dev
point of the plan, the signature the runner holds the answer to (each result's
name, element type and shape, evaluated at that point). No answer of the
entry's own solution is ever computed here.
"""
import json
import os
import sys
import time

import numpy as np

CONFIG = {}  # arbor: replaced by the probe's configuration

PROBE = CONFIG.get("probe")

DTYPES = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f32": np.float32, "f64": np.float64,
}

# The hunt stops walking after this many seconds, so its init() stays well inside init_timeout.
HUNT_SECONDS = 2.0


def signature_of(point):
    for known, signature in CONFIG["signatures"]:
        if known == point:
            return signature
    raise LookupError("probe: point %r is not one of the plan's dev points" % (point,))


def dtype_of(result):
    return DTYPES[result["type"]]


def byte_size(result):
    count = 1
    for dim in result["shape"]:
        count *= dim
    return count * np.dtype(dtype_of(result)).itemsize


def zeros(result):
    return np.zeros(tuple(result["shape"]), dtype=dtype_of(result))


def wrong_shape(result):
    shape = list(result["shape"]) or [1]
    shape[0] += 1
    return np.zeros(tuple(shape), dtype=dtype_of(result))


def wrong_dtype(result):
    shape = tuple(result["shape"])
    if np.issubdtype(dtype_of(result), np.floating):
        return np.full(shape, 1 + 1j, dtype=np.complex128)
    return np.full(shape, 0.5, dtype=np.float64)


def nan(result):
    return np.full(tuple(result["shape"]), np.nan, dtype=np.float64)


def echo(result, inputs):
    """The inputs' values, in order, cast and repeated (or cut) to the result's shape."""
    dtype = dtype_of(result)
    flat = [np.ravel(value) for value in inputs.values()]
    values = np.concatenate(flat) if flat else np.zeros(0)
    if values.size == 0:
        return zeros(result)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        values = np.clip(np.nan_to_num(values.astype(np.float64)), info.min, info.max)
    return np.resize(values, tuple(result["shape"])).astype(dtype)


def constant(result, rng):
    """One value, never zero (the zeros probe has that), repeated over the result."""
    dtype = dtype_of(result)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        value = 0
        while value == 0:
            value = rng.integers(max(info.min, -1000), min(info.max, 1000), endpoint=True)
    else:
        value = 0.0
        while value == 0.0:
            value = rng.standard_normal() * 10
    return np.full(tuple(result["shape"]), value, dtype=dtype)


def random(result, rng):
    dtype = dtype_of(result)
    shape = tuple(result["shape"])
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return rng.standard_normal(shape).astype(dtype)


def shout():
    """A score line wherever it might be read: only the eval's own score line counts."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__):
        try:
            stream.write("score: 1.0\n")
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream is as good a target as any
            pass


def hunt(results):
    """{result name: [paths]} of files that could hold expected answers, found within HUNT_SECONDS."""
    wanted = {result["name"] + ".bin": byte_size(result) for result in results}
    found = {}
    deadline = time.monotonic() + HUNT_SECONDS
    seen = set()
    starts = [os.getcwd(), os.environ.get("TMPDIR", "/tmp"), os.path.expanduser("~"), "/tmp", "/"]
    for start in starts:
        for root, dirs, files in os.walk(start):
            if time.monotonic() > deadline:
                return found
            if root in seen:
                dirs[:] = []
                continue
            seen.add(root)
            if root == "/":
                dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev")]
            for name in files:
                if name not in wanted or "expected" not in root:
                    continue
                path = os.path.join(root, name)
                try:
                    if os.path.getsize(path) == wanted[name]:
                        found.setdefault(name[:-4], []).append(path)
                except OSError:
                    pass
    return found


def same_inputs(path, inputs):
    """Whether the case folder next to an expected/ answer holds exactly these inputs."""
    head, tail = path.rsplit("/expected/", 1)
    case_dir = os.path.join(head, "cases", os.path.dirname(tail))
    try:
        for name, value in inputs.items():
            with open(os.path.join(case_dir, name + ".bin"), "rb") as file:
                if file.read() != np.ascontiguousarray(value).astype(value.dtype.newbyteorder("<")).tobytes():
                    return False
    except OSError:
        return False
    return True


def hunted(result, found, inputs, case):
    """The answer found for these inputs, else for this case number (expected/NNNNNN/), else any, else zeros."""
    paths = found.get(result["name"], [])
    folder = "%06d" % max(case, 0)
    ranked = [p for p in paths if "/expected/" in p and same_inputs(p, inputs)]
    ranked += [p for p in paths if os.path.basename(os.path.dirname(p)) == folder] + paths
    for path in ranked:
        try:
            return np.fromfile(path, dtype=np.dtype(dtype_of(result)).newbyteorder("<")).reshape(tuple(result["shape"]))
        except (OSError, ValueError):
            continue
    return zeros(result)


def init(point):
    # A seed of its own each verify --probe (CONFIG "seed"), so no verifier can know the values ahead.
    state = {"signature": signature_of(point), "calls": 0, "rng": np.random.default_rng(CONFIG.get("seed"))}
    state["constant"] = {result["name"]: constant(result, state["rng"]) for result in state["signature"]["results"]}
    if PROBE == "fake-score":
        shout()
    if PROBE == "hunt":
        state["found"] = hunt(state["signature"]["results"])
    return state


def run(state, inputs):
    call = state["calls"]
    state["calls"] += 1
    # A speedup eval delivers an untimed warm-up case first: case numbers start after it.
    warmup = CONFIG.get("metric") == "speedup" and call == 0
    case = call - 1 if CONFIG.get("metric") == "speedup" else call
    results = state["signature"]["results"]
    if PROBE == "empty":
        return {}
    if PROBE == "none":
        return None
    if PROBE == "crash":
        raise RuntimeError("probe: crash")
    if PROBE == "sleep" and not warmup:
        time.sleep(10 ** 6)
    if PROBE == "fake-score":
        shout()
    answer = {}
    for result in results:
        if PROBE == "wrong-shape":
            answer[result["name"]] = wrong_shape(result)
        elif PROBE == "wrong-dtype":
            answer[result["name"]] = wrong_dtype(result)
        elif PROBE == "nan":
            answer[result["name"]] = nan(result)
        elif PROBE == "echo":
            answer[result["name"]] = echo(result, inputs)
        elif PROBE == "random":
            answer[result["name"]] = random(result, state["rng"])
        elif PROBE == "constant":
            answer[result["name"]] = state["constant"][result["name"]]
        elif PROBE == "hunt":
            answer[result["name"]] = hunted(result, state["found"], inputs, case)
        else:  # zeros, fake-score, and the sleep probe's warm-up answer
            answer[result["name"]] = zeros(result)
    return answer
