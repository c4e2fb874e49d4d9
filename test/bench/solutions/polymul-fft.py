"""A fast polymul_negacyclic solution (the top-end bench's): the product by real FFTs.

Coefficients (< 2^31) are split into three 11-bit limbs, so every limb convolution
(at most N * 2^22 < 2^35 per coefficient, summed over three limb pairs) is exact after
rounding a float64 FFT of size 2N; x^N = -1 folds the upper half back with a minus sign.
"""

import numpy as np

BITS = 11
MASK = (1 << BITS) - 1


def init(point):
    return {"N": int(point["N"])}


def run(state, inputs):
    n = state["N"]
    q = int(inputs["q"].item())
    a = inputs["a"].astype(np.int64)
    b = inputs["b"].astype(np.int64)
    size = 2 * n
    fa = [np.fft.rfft((a >> (BITS * k)) & MASK, size) for k in range(3)]
    fb = [np.fft.rfft((b >> (BITS * k)) & MASK, size) for k in range(3)]
    c = np.zeros(n, dtype=np.int64)
    for s in range(5):
        spectrum = sum(fa[i] * fb[s - i] for i in range(3) if 0 <= s - i < 3)
        full = np.rint(np.fft.irfft(spectrum, size)).astype(np.int64)
        folded = (full[:n] - full[n:]) % q
        c = (c + folded * (pow(2, BITS * s, q))) % q
    return {"c": c.astype(np.uint32)}
