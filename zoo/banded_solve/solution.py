"""Baseline solution of banded_solve: banded Gaussian elimination without pivoting, row by row.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"N": size, "P": bandwidth, "R": right-hand sides}
  run(state, inputs) -> outputs timed; inputs["ab"]: float64 (2P+1, N), the band in LAPACK's general
                                band layout, ab[P + i - j, j] = A[i, j] for |i - j| <= P (the corners
                                outside the matrix are 0); inputs["b"]: float64 (N, R)
                                returns {"x": float64 (N, R)} with A x = b: for every column k,
                                max|A x_k - b_k| / (||A||_inf max|x_k| + max|b_k|) <= 1e-10
  free(state)                   optional

A is strictly diagonally dominant by rows, so elimination needs no pivoting.
"""

import numpy as np


def init(point):
    return {}


def run(state, inputs):
    ab, b = inputs["ab"], inputs["b"]
    p = (ab.shape[0] - 1) // 2
    n = ab.shape[1]
    # rows[i, p + j - i] = A[i, j]: each row of A's band as one contiguous vector
    i, d = np.meshgrid(np.arange(n), np.arange(-p, p + 1), indexing="ij")
    inside = (i + d >= 0) & (i + d < n)
    rows = np.zeros((n, 2 * p + 1))
    rows[inside] = ab[p - d[inside], (i + d)[inside]]
    x = np.array(b, dtype=np.float64)
    for k in range(n):
        last = min(n - 1, k + p)
        for r in range(k + 1, last + 1):
            factor = rows[r, p + k - r] / rows[k, p]
            rows[r, p + k - r : p + last - r + 1] -= factor * rows[k, p : p + last - k + 1]
            x[r] -= factor * x[k]
    for k in range(n - 1, -1, -1):
        last = min(n - 1, k + p)
        x[k] = (x[k] - rows[k, p + 1 : p + last - k + 1] @ x[k + 1 : last + 1]) / rows[k, p]
    return {"x": x}


def free(state):
    pass
