"""Baseline solution of poly_approx_depth: least squares on a uniform grid.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"C": 128, "G": 8193}
  run(state, inputs) -> outputs inputs["family"]: int32 scalar (0 sigmoid(kx), 1 tanh(kx), 2 x sigmoid(kx), 3 exp(-kx^2))
                                inputs["k"]: float64 scalar, inputs["depth"]: int32 scalar d
                                returns {"coef": float64 (C,)}: Chebyshev coefficients c_0 .. c_(C-1) of
                                p(x) = sum_j c_j T_j(x), with c_j = 0 for every j >= 2^d
  free(state)                   optional

The score of a case is max |p(x) - f(x)| over the verifier's grid on [-1, 1] (lower is better).
This baseline fits the 2^d coefficients by least squares to f at 1025 evenly spaced points.
"""

import numpy as np


def target(family, k, x):
    if family == 0:
        return 1.0 / (1.0 + np.exp(-k * x))
    if family == 1:
        return np.tanh(k * x)
    if family == 2:
        return x / (1.0 + np.exp(-k * x))
    return np.exp(-k * x * x)


def init(point):
    return {"C": int(point["C"])}


def run(state, inputs):
    family = int(inputs["family"])
    k = float(inputs["k"])
    n = 2 ** int(inputs["depth"])
    x = np.linspace(-1.0, 1.0, 1025)
    fit = np.polynomial.chebyshev.chebfit(x, target(family, k, x), n - 1)
    coef = np.zeros(state["C"])
    coef[:n] = fit
    return {"coef": coef}


def free(state):
    pass
