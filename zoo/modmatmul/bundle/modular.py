"""Modular arithmetic of zoo/modmatmul: the modulus and the exact product.

Entries are residues below q < 2^31, so a product of two is below 2^62 and four such products
sum to below 2^64: the oracle multiplies blocks of 4 columns of A by 4 rows of B in uint64
(which numpy wraps silently past 2^64, never reached here) and reduces after each block.
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


BLOCK = 4


def modmatmul(A, B, q):
    """C = A B mod q, exactly, every entry in [0, q)."""
    Q = np.uint64(q)
    A = A.astype(np.uint64)
    B = B.astype(np.uint64)
    C = np.zeros((A.shape[0], B.shape[1]), dtype=np.uint64)
    for k in range(0, A.shape[1], BLOCK):
        # < 4 (q-1)^2 + q < 2^64: the block's sum plus the running residue cannot wrap.
        C = (C + A[:, k:k + BLOCK] @ B[k:k + BLOCK]) % Q
    return C
