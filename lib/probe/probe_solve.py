"""Structural wrong answers for entries with interface = "solve" (AlgoTune's solver signature).

`verify --probe` on such an entry writes one probe file per probe: the entry's reference solver
(the task's own solve), this file, and a Solver that hands the reference's answer to
`arbor_wrong_answer` with the probe's name. Each probe answers something no validator of the task
should accept on every case, built from the right answer by structure alone:

    none                  None
    empty                 an empty value of the answer's type
    zeros                 every number zero, the structure kept
    negated               every number negated
    first-number-changed  the first number changed (by one, or by a thousandth of its size)
    truncated             the last item of the outermost list, tuple, string or array dropped
    nan                   every float NaN, the structure kept (a validator whose error > tol never fires)
    echo                  the problem itself
    liar                  a bytes subclass whose __eq__ and __len__ agree with anything (the
                          object encoding must refuse it before any validator sees it)

Where a probe's answer would equal the right one (zeros of an answer that is all zeros), or the probe
does not apply (truncating a number), the probe answers None. The import of an AlgoTune task runs
the same transformations in process (lib/import/algotune/inspect_task.py).
"""
import numpy as _arbor_np


def _arbor_numbers_changed(value, how):
    kind = type(value)
    if kind is bool:
        return value
    if kind in (int, float):
        return how(value)
    if kind is _arbor_np.ndarray and value.dtype.kind in "iuf" and value.size:
        return how(value)
    if kind in (list, tuple):
        return kind(_arbor_numbers_changed(item, how) for item in value)
    if kind is dict:
        return {key: _arbor_numbers_changed(item, how) for key, item in value.items()}
    return value


def _arbor_first_changed(value):
    state = {"done": False}

    def bump(x):
        if state["done"]:
            return x
        state["done"] = True
        if type(x) is _arbor_np.ndarray:
            y = x.copy().reshape(-1)
            y[0] = y[0] + (1 if y.dtype.kind in "iu" else max(abs(float(y[0])) * 1e-3, 1e-3))
            return y.reshape(x.shape)
        return x + 1 if type(x) is int else x + max(abs(x) * 1e-3, 1e-3)

    return _arbor_numbers_changed(value, bump)


def _arbor_floats_nan(value):
    kind = type(value)
    if kind is float:
        return float("nan")
    if kind is _arbor_np.ndarray and value.dtype.kind in "fc":
        return _arbor_np.full_like(value, _arbor_np.nan)
    if kind in (list, tuple):
        return kind(_arbor_floats_nan(item) for item in value)
    if kind is dict:
        return {key: _arbor_floats_nan(item) for key, item in value.items()}
    return value


def _arbor_empty(value):
    kind = type(value)
    if kind in (list, tuple, dict, str, bytes):
        return kind()
    if kind is _arbor_np.ndarray:
        return value[:0]
    return None


def _arbor_truncated(value):
    kind = type(value)
    if kind in (list, tuple, str, bytes) and len(value) > 1:
        return value[:-1]
    if kind is _arbor_np.ndarray and value.ndim and value.shape[0] > 1:
        return value[:-1]
    return None


class _ArborLiar(bytes):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __len__(self):
        return 1 << 20

    __hash__ = bytes.__hash__


ARBOR_PROBES = {
    "none": lambda right, problem: None,
    "empty": lambda right, problem: _arbor_empty(right),
    "zeros": lambda right, problem: _arbor_numbers_changed(right, lambda x: x * 0),
    "negated": lambda right, problem: _arbor_numbers_changed(right, lambda x: -x),
    "first-number-changed": lambda right, problem: _arbor_first_changed(right),
    "truncated": lambda right, problem: _arbor_truncated(right),
    "nan": lambda right, problem: _arbor_floats_nan(right),
    "echo": lambda right, problem: problem,
    "liar": lambda right, problem: _ArborLiar(b"arbor"),
}


def arbor_same(a, b):
    """Whether two plain values are the same value (numbers, containers and arrays compared exactly)."""
    if type(a) is not type(b):
        return False
    if type(a) is _arbor_np.ndarray:
        return a.shape == b.shape and a.dtype == b.dtype and bool(_arbor_np.array_equal(a, b))
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(arbor_same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return list(a) == list(b) and all(arbor_same(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return False


def arbor_wrong_answer(name, right, problem):
    """Probe `name`'s answer, built from the right one: None where it would be right or does not apply."""
    try:
        wrong = ARBOR_PROBES[name](right, problem)
    except Exception:  # noqa: BLE001 - a transformation that does not apply answers None
        return None
    if name not in ("liar", "echo") and arbor_same(wrong, right):
        return None
    return wrong
