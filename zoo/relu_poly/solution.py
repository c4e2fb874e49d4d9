"""Baseline solution of relu_poly: Chebyshev interpolation of ReLU at the D + 1 Chebyshev nodes.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"D", "M"}
  run(state, inputs) -> outputs inputs["x"]: float64 (M,), the evaluation points of this case
                                returns {"coef": float64 (D + 1,)}: Chebyshev coefficients c_0..c_D of
                                p(x) = sum_k c_k T_k(x), meant to approximate relu(x) = max(x, 0) on [-1, 1]
  free(state)                   optional

The score of a case is the share of its M points where |p(x) - relu(x)| <= 1e-3 (higher is better).
The intended task is a fixed polynomial for the whole interval: this baseline ignores inputs["x"].
"""

import numpy as np


def init(point):
    return {"D": int(point["D"])}


def run(state, inputs):
    n = state["D"] + 1
    theta = np.pi * (np.arange(n) + 0.5) / n          # Chebyshev nodes of the first kind: cos(theta)
    values = np.maximum(np.cos(theta), 0.0)
    k = np.arange(n)[:, None]
    coef = (2.0 / n) * (np.cos(k * theta[None, :]) @ values)
    coef[0] /= 2.0
    return {"coef": coef}


def free(state):
    pass
