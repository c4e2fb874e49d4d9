"""Reference solver of ntt_forward (protected; identical to the baseline solution.py): the textbook iterative Cooley-Tukey NTT.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"B", "N", "W"}
  run(state, inputs) -> outputs timed; inputs["a"]: uint32 (B, N), B polynomials, coefficients in [0, q);
                                inputs["q"]: uint32 () the prime modulus, q < 2^W <= 2^31, q = 1 mod 2N;
                                inputs["psi"]: uint32 () a primitive 2N-th root of unity mod q
                                returns {"A": uint32 (B, N)}: A[b, j] = sum_i a[b, i] psi^((2j+1) i) mod q,
                                j = 0..N-1 in natural order, per row b (compared byte for byte)
  free(state)                   optional
"""

import numpy as np


def init(point):
    return {}


def bit_reversal(n):
    """The permutation i -> i with its log2(n) bits reversed."""
    bits = n.bit_length() - 1
    i = np.arange(n)
    rev = np.zeros(n, dtype=np.int64)
    for b in range(bits):
        rev |= ((i >> b) & 1) << (bits - 1 - b)
    return rev


def run(state, inputs):
    q = int(inputs["q"])
    psi = int(inputs["psi"])
    a = inputs["a"].astype(np.int64)
    n = a.shape[1]
    # Twist by psi^i: the negacyclic transform of a is the cyclic one (omega = psi^2) of the twisted a.
    twist = np.empty(n, dtype=np.int64)
    p = 1
    for i in range(n):
        twist[i] = p
        p = p * psi % q
    x = (a * twist % q)[:, bit_reversal(n)]
    # Iterative Cooley-Tukey, decimation in time: bit-reversed input, natural-order output.
    # Residues are below q < 2^31, so a product of two is below 2^62: exact in int64.
    omega = psi * psi % q
    m = 2
    while m <= n:
        half = m // 2
        wm = pow(omega, n // m, q)
        w = 1
        for j in range(half):
            # Butterfly j of every block of length m, in every row: the block starts are j::m,
            # their partners j+half::m.
            u = x[:, j::m]
            t = x[:, j + half::m] * w % q
            top = (u + t) % q
            bottom = (u - t) % q
            x[:, j::m] = top
            x[:, j + half::m] = bottom
            w = w * wm % q
        m *= 2
    return {"A": x.astype(np.uint32)}


def free(state):
    pass
