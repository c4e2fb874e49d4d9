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
    last-number-changed   the last number changed, as the first: a validator that checks a sample of
                          rows, a prefix or the first few items of each row does not see it
    item-repeated         each outermost list, tuple or array given its first item again, right after
                          it: a validator that checks a length, a count or membership, not that the
                          items are distinct (a hull with a vertex twice)
    row-first-repeated    each row (innermost list or array axis of numbers) made of its first item
                          alone, repeated: the nearest neighbour k times (a validator that checks each
                          item on its own and their order, not that they differ)
    smallest-part-zeros   of an answer in parts (a dict's values, a tuple's items) holding numbers,
                          the part with the fewest numbers zeroed: the singular values of an SVD,
                          the weights beside a basis (a validator whose error bound lets that part
                          be nothing: randomized_svd's tolerance above 1)
    scaled                every float times 1e6: a validator whose tolerance grows with the answer
                          (an error relative to the answer's own norm, a bound on its scale)
    nan                   every float NaN, the structure kept (a validator whose error > tol never fires)
    echo                  the problem itself
    liar                  a bytes subclass whose __eq__ and __len__ agree with anything (the
                          object encoding must refuse it before any validator sees it)

Where a probe's answer would equal the right one (zeros of an answer that is all zeros), or the probe
does not apply (truncating a number), the probe answers None. The import of an AlgoTune task runs
the same transformations in process (lib/import/algotune/inspect_task.py).
"""
import numpy as _arbor_np


# numpy's scalars (what a list of np.roots' items holds) are numbers too, and so are complex ones.
_ARBOR_SCALARS = (int, float, complex, _arbor_np.integer, _arbor_np.floating, _arbor_np.complexfloating)


def _arbor_numbers_changed(value, how):
    kind = type(value)
    if kind is bool or kind is _arbor_np.bool_:
        return value
    if isinstance(value, _ARBOR_SCALARS):
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
        return x + 1 if isinstance(x, (int, _arbor_np.integer)) else x + max(abs(x) * 1e-3, 1e-3)

    return _arbor_numbers_changed(value, bump)


def _arbor_last_changed(value):
    """The first number of the answer read backwards changed, as _arbor_first_changed does."""
    return _arbor_reversed_items(_arbor_first_changed(_arbor_reversed_items(value)))


def _arbor_reversed_items(value):
    kind = type(value)
    if kind is _arbor_np.ndarray and value.ndim:
        return value.reshape(-1)[::-1].reshape(value.shape)
    if kind in (list, tuple):
        return kind(_arbor_reversed_items(item) for item in reversed(value))
    if kind is dict:
        return {key: _arbor_reversed_items(value[key]) for key in reversed(list(value))}
    return value


def _arbor_item_repeated(value):
    kind = type(value)
    if kind is dict:
        return {key: _arbor_item_repeated(item) for key, item in value.items()}
    if kind in (list, tuple) and value:
        return kind([value[0], *value])
    if kind is _arbor_np.ndarray and value.ndim and value.shape[0]:
        return _arbor_np.concatenate([value[:1], value])
    return value


def _arbor_row_first_repeated(value):
    kind = type(value)
    if kind is dict:
        return {key: _arbor_row_first_repeated(item) for key, item in value.items()}
    if kind is _arbor_np.ndarray and value.ndim and value.shape[-1] > 1 and value.dtype.kind in "iuf":
        return _arbor_np.repeat(value[..., :1], value.shape[-1], axis=-1)
    if kind in (list, tuple) and len(value) > 1 and all(isinstance(x, _ARBOR_SCALARS) and type(x) is not bool for x in value):
        return kind([value[0]] * len(value))
    if kind in (list, tuple):
        return kind(_arbor_row_first_repeated(item) for item in value)
    return value


def _arbor_count_numbers(value):
    kind = type(value)
    if isinstance(value, _ARBOR_SCALARS) and kind is not bool:
        return 1
    if kind is _arbor_np.ndarray and value.dtype.kind in "iuf":
        return value.size
    if kind in (list, tuple):
        return sum(_arbor_count_numbers(item) for item in value)
    if kind is dict:
        return sum(_arbor_count_numbers(item) for item in value.values())
    return 0


def _arbor_smallest_part_zeros(value):
    parts = list(value.items()) if type(value) is dict else list(enumerate(value)) if type(value) is tuple else []
    sized = [(_arbor_count_numbers(part), key) for key, part in parts]
    sized = [(count, key) for count, key in sized if count]
    if len(sized) < 2:
        return None
    smallest = min(sized, key=lambda pair: pair[0])[1]
    zeroed = _arbor_numbers_changed(value[smallest], lambda x: x * 0)
    if type(value) is dict:
        return {key: zeroed if key == smallest else part for key, part in value.items()}
    return tuple(zeroed if key == smallest else part for key, part in parts)


def _arbor_scaled(value):
    kind = type(value)
    if isinstance(value, (float, complex, _arbor_np.floating, _arbor_np.complexfloating)):
        return value * 1e6
    if kind is _arbor_np.ndarray and value.dtype.kind in "fc":
        return value * 1e6
    if kind in (list, tuple):
        return kind(_arbor_scaled(item) for item in value)
    if kind is dict:
        return {key: _arbor_scaled(item) for key, item in value.items()}
    return value


def _arbor_floats_nan(value):
    kind = type(value)
    if isinstance(value, (float, _arbor_np.floating)):
        return kind(float("nan"))
    if isinstance(value, (complex, _arbor_np.complexfloating)):
        return kind(complex(float("nan"), float("nan")))
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
    "last-number-changed": lambda right, problem: _arbor_last_changed(right),
    "item-repeated": lambda right, problem: _arbor_item_repeated(right),
    "row-first-repeated": lambda right, problem: _arbor_row_first_repeated(right),
    "smallest-part-zeros": lambda right, problem: _arbor_smallest_part_zeros(right),
    "scaled": lambda right, problem: _arbor_scaled(right),
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
