"""poly_approx_depth: a near-minimax polynomial by Lawson's iteration (iteratively reweighted least squares).

Starts from least squares on a Chebyshev-Lobatto grid (the kind of grid the verifier uses), then
multiplies each point's weight by its current error, so the weight gathers where the error peaks and
the fit tends to the equioscillating (minimax) polynomial. Keeps the best iterate by its largest error
on a finer grid. Costs well under a second per case at 2^7 coefficients (an accuracy eval is not timed).
"""

import numpy as np

C = np.polynomial.chebyshev


def target(family, k, x):
    if family == 0:
        return 1.0 / (1.0 + np.exp(-k * x))
    if family == 1:
        return np.tanh(k * x)
    if family == 2:
        return x / (1.0 + np.exp(-k * x))
    return np.exp(-k * x * x)


def init(point):
    return {"C": int(point["C"]), "G": int(point["G"])}


def run(state, inputs):
    family = int(inputs["family"])
    k = float(inputs["k"])
    n = 2 ** int(inputs["depth"])
    m = 8 * n
    x = np.cos(np.pi * np.arange(m + 1) / m)
    y = target(family, k, x)
    V = C.chebvander(x, n - 1)
    check = np.cos(np.pi * np.arange(state["G"]) / (state["G"] - 1))
    W = C.chebvander(check, n - 1)
    fcheck = target(family, k, check)
    w = np.full(m + 1, 1.0 / (m + 1))
    best, best_err = None, np.inf
    for _ in range(100):
        # Weighted normal equations: the Chebyshev basis on a Chebyshev grid is well conditioned.
        c = np.linalg.solve((V * w[:, None]).T @ V, V.T @ (w * y))
        err = np.max(np.abs(W @ c - fcheck))
        if err < best_err:
            best, best_err = c, err
        w = w * np.abs(V @ c - y)
        w = np.maximum(w / w.sum(), 1e-14)
        w /= w.sum()
    coef = np.zeros(state["C"])
    coef[:n] = best
    return {"coef": coef}


def free(state):
    pass
