"""Inspect one AlgoTune task for `arbor benchmark import algotune` (run once per task, in its own process).

    python3 -I -B runner.py --solution <folder>/options.json

It runs where the eval's runner runs (lib/import/inspect.ts: in the sandbox, in the runner's place),
with arbor's object encoding beside it (objects.py). The options file holds {"file", "task",
"target_ms", "search_seconds", "seeds"}; its folder holds the task's module at "file" (relative),
arbor's stand-in base.py and the probes (probe_solve.py).

Prints one JSON object on stdout (the task's own prints go to stderr):

    {"ok": true, "n": N, "solve_ms": [...], "problem_bytes": B, "solution_bytes": S, "imports": [...],
     "search": [[n, solve ms, make ms, bytes], ...], "codec_ms": ..., "probes": [{"probe", "case", "answer", "right", "everyCase"}],
     "probes_tried": [name, ...], "routed": {"os.urandom": calls}}
    {"ok": false, "reason": "missing-module" | "no-task" | "generator-fails" | "not-deterministic" |
     "solve-fails" | "own-answer-rejected" | "not-encodable" | "too-slow" | "older-module", "detail": "...", "module": ...}

n is chosen as AlgoTune chooses it: the size at which the task's own solve takes about the target
time on this machine (doubling n from 1, then keeping the size closest to the target in log scale).
"""
import ast
import importlib.util
import json
import math
import os
import sys
import time
import types

sys.dont_write_bytecode = True
_OUT = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr
HERE = os.path.dirname(os.path.abspath(__file__))
# The folder of the options file: the task's module, base.py and probe_solve.py (set by the entry point below).
ASSETS = HERE
# The search stops before a size whose problem takes longer than this to make or to check, or more bytes than this.
MAX_MAKE_SECONDS = 2.0
MAX_CHECK_SECONDS = 1.0
# A solve that takes this long is timed once: the least of three would cost too much for what it tells.
RETRY_SECONDS = 1.0
MAX_PROBLEM_BYTES = 64 << 20


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def top_level_imports(file):
    """The top-level package of every import in the task's source (AlgoTuneTasks left out)."""
    with open(file, "rb") as handle:
        tree = ast.parse(handle.read(), file)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    names.discard("AlgoTuneTasks")
    names.discard("__future__")
    return sorted(n for n in names if n not in sys.stdlib_module_names)


def submodules(file):
    """`package.sub` attributes the task's source uses (sklearn.cluster after a bare `import sklearn`):
    AlgoTune's own harness happens to have imported them; a process of the task's own must."""
    import re

    with open(file, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    found = set()
    for package in ("sklearn", "scipy", "skimage"):
        if re.search(r"^\s*import %s\b" % package, text, re.M):
            found.update("%s.%s" % (package, sub) for sub in re.findall(r"\b%s\.([a-z_]+)\b" % package, text))
    return sorted(found)


def preimport(names):
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            pass


class ErrorLog:
    """The ERROR records the task logs while it solves: a solve that catches its own failure and
    answers a fallback says so only there."""

    def __init__(self):
        import logging

        self.records = []
        handler = logging.Handler(logging.ERROR)
        handler.emit = self.records.append
        logging.getLogger().addHandler(handler)


def generate(task, n, seed):
    """generate_problem as the bundle calls it (entry.py's generate_problem): the global `random` and
    `numpy.random` seeded from the case's seed first, and `os.urandom` answering from a generator seeded
    with it for the call (entry.py's routed_urandom, the same bytes), so a generator that draws from them
    is reproducible."""
    import random

    random.seed(seed)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(seed & 0xFFFFFFFF)
    stream = random.Random("arbor os.urandom %d" % seed)
    real = os.urandom

    def urandom(size):
        ROUTED["os.urandom"] = ROUTED.get("os.urandom", 0) + 1
        return stream.randbytes(size)

    os.urandom = urandom
    try:
        return task.generate_problem(n, random_seed=seed)
    finally:
        os.urandom = real


# The draws outside the task's seed that generate() routed through it, with how many calls (PROVENANCE says so).
ROUTED = {}


def accepted(verdict):
    """is_solution's True (Python's or numpy's), as the bundle's verify.py reads it."""
    return verdict is True or (type(verdict).__name__ == "bool_" and bool(verdict))


def finish(result):
    _OUT.write(json.dumps(result) + "\n")
    _OUT.flush()
    os._exit(0)


def fail(reason, detail, **extra):
    finish({"ok": False, "reason": reason, "detail": str(detail)[:400], **extra})


def older(error, imports):
    """Fail as `older-module` when the task reached for a name an installed module lacks (`cannot import
    name 'cumulative_simpson' from 'scipy.integrate'`, `module 'scipy.sparse' has no attribute
    'random_array'`): the module is older than the one the task was written for, and another interpreter
    (a newer scipy) may run the task as it is. No stand-in is offered: a name added later is a function
    whose answers arbor cannot vouch for on an older release."""
    import re

    text = str(error)
    if isinstance(error, ImportError) and not isinstance(error, ModuleNotFoundError):
        found = re.match(r"cannot import name '(\w+)' from '([\w.]+)'", text)
        name, module = (found.group(1), found.group(2)) if found else (None, None)
    elif isinstance(error, AttributeError):
        found = re.match(r"module '([\w.]+)' has no attribute '(\w+)'", text)
        module, name = (found.group(1), found.group(2)) if found else (None, None)
    else:
        return
    package = (module or "").split(".")[0]
    if not name or package in ("", "AlgoTuneTasks") or package not in sys.modules:
        return
    version = getattr(sys.modules[package], "__version__", None) or "(version unknown)"
    fail("older-module", "%s %s lacks %s.%s (added in a later %s)" % (package, version, module, name, package), module=package, imports=imports)


def describe(error):
    return "%s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else "")


def main(options):
    file, name = os.path.join(ASSETS, options["file"]), options["task"]
    objects = load("arbor_objects", os.path.join(HERE, "objects.py"))
    package = types.ModuleType("AlgoTuneTasks")
    package.__path__ = []
    sys.modules["AlgoTuneTasks"] = package
    base = load("AlgoTuneTasks.base", os.path.join(ASSETS, "base.py"))
    package.base = base
    try:
        imports = top_level_imports(file)
    except SyntaxError as error:
        fail("no-task", "the task's module does not parse: %s" % describe(error))
    wanted = submodules(file)
    preimport(wanted)
    try:
        load("AlgoTuneTasks.%s.%s" % (name, name), file)
    except ModuleNotFoundError as error:
        fail("missing-module", describe(error), module=(error.name or "").split(".")[0], imports=imports)
    except Exception as error:  # noqa: BLE001 - any failure to import is a skip with its reason
        older(error, imports)
        fail("no-task", "the task's module does not import: %s" % describe(error), imports=imports)
    cls = base.TASK_REGISTRY.get(name)
    if cls is None:
        fail("no-task", "the module registers no task named %r (registered: %s)" % (name, ", ".join(sorted(base.TASK_REGISTRY)) or "none"), imports=imports)
    try:
        task = cls()
    except Exception as error:  # noqa: BLE001
        fail("no-task", "the task cannot be constructed: %s" % describe(error), imports=imports)

    errors = ErrorLog()
    target = options["target_ms"] / 1000.0
    budget = options["search_seconds"]
    started = time.perf_counter()

    def timed_solve(problem):
        logged = len(errors.records)
        t0 = time.perf_counter()
        try:
            solution = task.solve(problem)
        except ModuleNotFoundError as error:
            # A module the task imports only inside solve (ortools, pysat): missing, like one imported at the top.
            fail("missing-module", describe(error), module=(error.name or "").split(".")[0], imports=imports)
        if len(errors.records) > logged:
            fail("solve-fails", "the task's solve logged an error and answered anyway: %s" % errors.records[logged].getMessage()[:200], imports=imports)
        return solution, time.perf_counter() - t0

    # The target-time search: double n until the task's solve takes the target time (or the budget runs out).
    search = []
    n, failures = 1, []
    while n <= 1 << 20 and time.perf_counter() - started < budget:
        t0 = time.perf_counter()
        try:
            problem = generate(task, n, 1)
            size = len(objects.encode(problem))
        except objects.EncodingError as error:
            fail("not-encodable", "the problem (n = %d) holds %s" % (n, error), imports=imports)
        except Exception as error:  # noqa: BLE001 - some generators need a larger n
            older(error, imports)
            failures.append("n = %d: %s" % (n, describe(error)))
            if search or n >= 64:
                break
            n *= 2
            continue
        made = time.perf_counter() - t0
        try:
            # The least of three solves (as AlgoTune times): neither a first call's costs nor one slow moment
            # of the machine chooses n or skips a task as too slow (a first call 20x the target, under the
            # load of a test suite, once did). Only a solve over RETRY_SECONDS is not repeated.
            solution, seconds = timed_solve(problem)
            for _ in range(2):
                if seconds >= RETRY_SECONDS:
                    break
                seconds = min(seconds, timed_solve(problem)[1])
        except Exception as error:  # noqa: BLE001
            older(error, imports)
            fail("solve-fails", "the task's solve raised at n = %d: %s" % (n, describe(error)), imports=imports)
        # The validator runs on every case of every repetition too: a size it takes seconds to check is too large.
        t0 = time.perf_counter()
        try:
            task.is_solution(problem, solution)
        except Exception:  # noqa: BLE001 - judged below, on the encoded answer
            pass
        checked = time.perf_counter() - t0
        if search and checked > MAX_CHECK_SECONDS:
            break
        search.append([n, round(seconds * 1000, 3), round(made * 1000, 3), size])
        # Past the target, or where one more doubling would make problems too slow to make, check or carry.
        if seconds >= target or made > MAX_MAKE_SECONDS / 2 or checked > MAX_CHECK_SECONDS / 2 or size > MAX_PROBLEM_BYTES / 2:
            break
        n *= 2
    if not search:
        fail("generator-fails", "generate_problem raised for every n tried (%s)" % "; ".join(failures[:3]), imports=imports)
    n, ms = min(search, key=lambda entry: abs(math.log(max(entry[1], 1e-3) / (target * 1000))))[:2]
    if ms > 20 * target * 1000:
        fail("too-slow", "the task's solve takes %.0f ms at its smallest n = %d, over 20 x the target" % (ms, n), imports=imports)

    # Every seed: the generator twice (same bytes), the task's solve accepted by its own is_solution, through the encoding.
    solve_ms, codec_ms, problem_bytes, solution_bytes = [], [], 0, 0
    problems = []
    for seed in options["seeds"]:
        try:
            first = generate(task, n, seed)
            encoded = objects.encode(first)
            again = objects.encode(generate(task, n, seed))
        except objects.EncodingError as error:
            fail("not-encodable", "the problem (n = %d, seed %d) holds %s" % (n, seed, error), imports=imports)
        except Exception as error:  # noqa: BLE001
            older(error, imports)
            fail("generator-fails", "generate_problem(%d, %d) raised: %s" % (n, seed, describe(error)), imports=imports)
        if encoded != again:
            at = next((k for k in range(min(len(encoded), len(again))) if encoded[k] != again[k]), min(len(encoded), len(again)))
            fail("not-deterministic", "generate_problem(%d, %d) made two different problems (first difference at byte %d of the encoding), with the global random, numpy.random and os.urandom seeded from the seed: it draws outside them (secrets, numpy's default_rng() without a seed, the clock)" % (n, seed, at), imports=imports)
        try:
            solution, seconds = timed_solve(objects.decode(encoded))
        except Exception as error:  # noqa: BLE001
            older(error, imports)
            fail("solve-fails", "the task's solve raised (n = %d, seed %d): %s" % (n, seed, describe(error)), imports=imports)
        solve_ms.append(round(seconds * 1000, 3))
        t0 = time.perf_counter()
        try:
            answer = objects.encode(solution)
        except objects.EncodingError as error:
            fail("not-encodable", "the task's answer (n = %d, seed %d) holds %s" % (n, seed, error), imports=imports)
        problem = objects.decode(encoded)
        decoded = objects.decode(answer)
        codec_ms.append(round((time.perf_counter() - t0) * 1000, 3))
        try:
            verdict = task.is_solution(problem, decoded)
        except Exception as error:  # noqa: BLE001
            fail("own-answer-rejected", "is_solution raised on the task's own answer (seed %d): %s" % (seed, describe(error)), imports=imports)
        if not accepted(verdict):
            fail("own-answer-rejected", "is_solution rejects the task's own answer (n = %d, seed %d, returned %r)" % (n, seed, verdict), imports=imports)
        problem_bytes = max(problem_bytes, len(encoded))
        solution_bytes = max(solution_bytes, len(answer))
        problems.append((encoded, answer))

    finish({
        "ok": True,
        "n": n,
        "search": search,
        "solve_ms": solve_ms,
        "codec_ms": codec_ms,
        "problem_bytes": problem_bytes,
        "solution_bytes": solution_bytes,
        "imports": imports,
        "submodules": wanted,
        "routed": ROUTED,
        "python": {"executable": sys.executable, "version": sys.version.split()[0], "numpy": sys.modules["numpy"].__version__ if "numpy" in sys.modules else None},
        **probe_validator(task, objects, problems[:2]),
    })


# The structural probes tried at the import, in order; the last five are the kinds of hole AlgoTune's
# own validator fixes closed (docs/algotune-validators.md): each costs a solve, so none skips a task.
PROBES = (
    "none", "empty", "zeros", "negated", "first-number-changed", "truncated", "nan",
    "last-number-changed", "item-repeated", "row-first-repeated", "smallest-part-zeros", "scaled",
)


def probe_validator(task, objects, cases):
    """Wrong answers, built from the task's own answer by structure alone (lib/probe/probe_solve.py,
    the transformations `verify --probe` runs through the eval), that is_solution accepts: each is
    evidence of a validator that checks less than the task asks (a finding to read: for a task with
    several right answers, a changed answer can be right). Each probe is tried on every case given;
    everyCase says it was accepted on each case where it differs from the right answer (a speed
    entry scores 0.0 when any case fails, so only such a probe scores). probes_tried names every probe
    that applied to some case (built, and different from the right answer): the validator's strength
    is what it rejected of those."""
    probes = load("arbor_probe_solve", os.path.join(ASSETS, "probe_solve.py"))
    found, applied = [], []
    for name in PROBES:
        first, tried, passed = None, 0, 0
        for index, (problem_bytes, answer_bytes) in enumerate(cases):
            right = objects.decode(answer_bytes)
            try:
                wrong = probes.arbor_wrong_answer(name, objects.decode(answer_bytes), objects.decode(problem_bytes))
                if (wrong is None and name != "none") or objects.encode(wrong) == answer_bytes:
                    continue
            except Exception:  # noqa: BLE001 - a probe that cannot be built does not apply to this case
                continue
            tried += 1
            try:
                verdict = task.is_solution(objects.decode(problem_bytes), wrong)
            except Exception:  # noqa: BLE001 - a probe refused by raising is not accepted
                continue
            if accepted(verdict):
                passed += 1
                if first is None:
                    first = {"probe": name, "case": index, "answer": short(wrong), "right": short(right)}
        if tried:
            applied.append(name)
        if first is not None:
            found.append({**first, "everyCase": passed == tried})
    return {"probes": found, "probes_tried": applied}


def short(value):
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def read_options(argv):
    global ASSETS
    if len(argv) != 3 or argv[1] != "--solution":
        fail("no-task", "usage: inspect_task.py --solution <folder>/options.json")
    ASSETS = os.path.dirname(os.path.abspath(argv[2]))
    with open(argv[2], encoding="utf-8") as handle:
        return json.load(handle)


if __name__ == "__main__":
    try:
        main(read_options(sys.argv))
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001 - the importer reads one line whatever happened
        fail("no-task", "inspecting the task failed: %s" % describe(error))
