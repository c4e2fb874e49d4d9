"""Baseline solution of polymul_negacyclic: the schoolbook negacyclic product.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"N", "W"}
  run(state, inputs) -> outputs timed; inputs["a"], inputs["b"]: uint32 (N,), coefficients in [0, q);
                                inputs["q"]: uint32 () the prime modulus, q < 2^W <= 2^31, q = 1 mod 2N
                                returns {"c": uint32 (N,)}: a * b mod (x^N + 1, q), every
                                coefficient reduced into [0, q) (compared byte for byte)
  free(state)                   optional

q is the largest prime below 2^W with q = 1 (mod 2N); it is also passed as the input "q".
"""

import numpy as np


def init(point):
    return {}


def run(state, inputs):
    q = np.uint64(inputs["q"].item())
    a = inputs["a"].astype(np.uint64)
    b = inputs["b"].astype(np.uint64)
    n = a.shape[0]
    # e[n - i : 2n - i] is b multiplied by x^i in the ring: wrapped coefficients change sign.
    e = np.concatenate([(q - b) % q, b])
    c = np.zeros(n, dtype=np.uint64)
    for i in range(n):
        # a[i] * e[...] < q^2 < 2^62, plus c < q: no overflow in uint64, reduced every step.
        c = (c + a[i] * e[n - i:2 * n - i]) % q
    return {"c": c.astype(np.uint32)}


def free(state):
    pass
