"""A fast solution for the public Arbor harness's kNN entry (its solve(problem) interface), for eval-kept's comparison.

Squared distances by one matrix product; argpartition keeps the k nearest, which are then sorted by distance.
"""

import numpy as np


def solve(problem: dict) -> np.ndarray:
    database = problem["database"]
    queries = problem["queries"]
    k = problem["k"]
    dist = (database * database).sum(axis=1)[None, :] - 2.0 * (queries @ database.T)
    near = np.argpartition(dist, k - 1, axis=1)[:, :k]
    keys = np.take_along_axis(dist, near, axis=1)
    return np.take_along_axis(near, np.argsort(keys, axis=1, kind="stable"), axis=1)
