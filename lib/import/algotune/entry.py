"""The AlgoTune task this bundle wraps, and arbor's object encoding (written by `arbor benchmark import algotune`).

The task's module lies in AlgoTuneTasks/<task>/<task>.py as AlgoTune ships it; AlgoTuneTasks/base.py
is arbor's stand-in for AlgoTune's base class. generate.py, oracle.py and verify.py use this file.
"""
import importlib.util
import os
import sys

TASK = "{{task}}"
# Submodules the task uses after a bare `import sklearn` (or scipy, skimage), imported first.
PREIMPORT = {{preimport}}
HERE = os.path.dirname(os.path.abspath(__file__))
_task = None


def _load(name, file):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


objects = _load("arbor_objects", os.path.join(HERE, "arbor_objects.py"))


def task():
    """The task's instance (one per process)."""
    global _task
    if _task is None:
        for name in PREIMPORT:
            importlib.import_module(name)
        package = _load("AlgoTuneTasks", os.path.join(HERE, "AlgoTuneTasks", "__init__.py"))
        base = _load("AlgoTuneTasks.base", os.path.join(HERE, "AlgoTuneTasks", "base.py"))
        package.base = base
        _load("AlgoTuneTasks.%s.%s" % (TASK, TASK), os.path.join(HERE, "AlgoTuneTasks", TASK, TASK + ".py"))
        _task = base.TASK_REGISTRY[TASK]()
    return _task


def generate_problem(n, seed):
    """The task's generate_problem(n, random_seed=seed), with Python's global `random` and numpy's
    global `numpy.random` seeded from the same seed first, and `os.urandom` answering from a generator
    seeded with it for the call: many AlgoTune generators draw from them besides (or instead of) their
    seed (the crypto tasks' keys and plaintexts come from os.urandom), and a draw routed through the
    case's seed is reproducible while no more known to a solver than the seed itself. A draw outside
    them (secrets, numpy's default_rng() without a seed, the clock) is not: the importer skips such a task."""
    seed_globals(seed)
    with routed_urandom(seed):
        return task().generate_problem(n, random_seed=seed)


def seed_globals(seed):
    import random

    random.seed(seed)
    try:
        import numpy
    except ImportError:
        return
    numpy.random.seed(seed & 0xFFFFFFFF)


class routed_urandom:
    """`os.urandom` replaced, for one generate_problem call, by bytes of a `random.Random` seeded with
    the case's seed (a str seed: hashed by SHA-512, the same under any PYTHONHASHSEED). Only callers
    that look `os.urandom` up when they call it are routed (cryptography's generate_key, a task's own
    `os.urandom(16)`); `secrets` and `random.SystemRandom` bound theirs at import and stay unseeded.
    `used` counts the calls routed (the importer records it in PROVENANCE)."""

    used = 0

    def __init__(self, seed):
        import random

        self.stream = random.Random("arbor os.urandom %d" % seed)

    def __enter__(self):
        self.real = os.urandom
        os.urandom = self.urandom
        return self

    def __exit__(self, *exc):
        os.urandom = self.real
        return False

    def urandom(self, size):
        routed_urandom.used += 1
        return self.stream.randbytes(size)


def seed_of(stream):
    """AlgoTune's random_seed for one case: 31 bits of the case's stream."""
    return int.from_bytes(stream.bytes(4), "little") >> 1


def tensor(value, capacity):
    """`value` encoded as the u8 tensor of a binding of `capacity` bytes."""
    import numpy as np

    return np.frombuffer(objects.pack(value, int(capacity)), dtype=np.uint8)
