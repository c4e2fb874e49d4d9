"""Baseline solution of toeplitz_solve: assemble the dense matrix and call numpy.linalg.solve.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"N"}
  run(state, inputs) -> outputs timed; inputs["c"]: float64 (N,) first column of T, inputs["r"]:
                                float64 (N,) first row of T (c[0] == r[0]), inputs["b"]: float64 (N,)
                                returns {"x": float64 (N,)} with max|T x - b| / max|b| <= 1e-9
  free(state)                   optional

T[i, j] = c[i - j] for i >= j and r[j - i] for j > i; T is strictly diagonally dominant.
"""

import numpy as np


def init(point):
    n = int(point["N"])
    return {"offset": np.subtract.outer(np.arange(n), np.arange(n))}  # i - j


def run(state, inputs):
    c, r, b = inputs["c"], inputs["r"], inputs["b"]
    offset = state["offset"]
    T = np.where(offset >= 0, c[np.maximum(offset, 0)], r[np.maximum(-offset, 0)])
    return {"x": np.linalg.solve(T, b)}


def free(state):
    pass
