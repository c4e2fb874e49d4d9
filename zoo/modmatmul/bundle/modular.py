"""Modular arithmetic of zoo/modmatmul: the modulus and the exact product.

Entries are residues below q < 2^31. The oracle splits both factors into 16-bit limbs and multiplies
the limbs as float64 matrices, exact because every partial sum stays below 2^53 (modmatmul says why).
"""
import numpy as np

# Deterministic Miller-Rabin bases: correct for every n < 2,152,302,898,747 (q < 2^31 here).
_BASES = (2, 3, 5, 7, 11)


def is_prime(n):
    if n < 2:
        return False
    for p in _BASES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def modulus(W):
    """The largest prime q < 2^W."""
    if not 2 <= W <= 31:
        raise ValueError(f"point: W ({W}) must be in [2, 31]")
    q = 2 ** W - 1
    while not is_prime(q):
        q -= 1
    return q


# Limbs of 16 bits: a limb product is below 2^32, so a sum of K <= 4096 of them is below 2^44.
LIMB = 16
MAX_K = 4096


def _exact(x, y):
    """The float64 product of two limb matrices, as the int64 it exactly is."""
    return (x @ y).astype(np.int64)


def modmatmul(A, B, q):
    """C = A B mod q, exactly, every entry in [0, q).

    A = 2^16 a1 + a0 and B = 2^16 b1 + b0 with every limb below 2^16. The four limb products are
    float64 matrix products whose every partial sum is an integer below 2^44 < 2^53, so each is
    exact whatever order BLAS adds in; they are recombined in int64 by Horner in 2^16, reducing as
    it goes (every intermediate below 2^47). About 12 times faster than summing blocks of 4 products
    in uint64 (5.7 ms against 68 ms a dev case): most of what an eval spent on expected answers.
    """
    if A.shape[1] > MAX_K:
        raise ValueError(f"K ({A.shape[1]}) is above {MAX_K}: the limb products would no longer be exact in float64")
    A = A.astype(np.int64)
    B = B.astype(np.int64)
    mask = (1 << LIMB) - 1
    a0, a1 = (A & mask).astype(np.float64), (A >> LIMB).astype(np.float64)
    b0, b1 = (B & mask).astype(np.float64), (B >> LIMB).astype(np.float64)
    C = _exact(a1, b1) % q
    C = ((C << LIMB) + _exact(a1, b0) + _exact(a0, b1)) % q
    return ((C << LIMB) + _exact(a0, b0)) % q
