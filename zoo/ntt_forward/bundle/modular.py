"""Modular arithmetic of zoo/ntt_forward: the modulus, the root and the exact transform.

Everything is exact: residues are below q < 2^31, so a product of two is below 2^62 and is
computed in uint64 without overflow; sums of two residues stay below 2^32.
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


def check_point(N, W):
    if N < 2 or N & (N - 1):
        raise ValueError(f"point: N ({N}) must be a power of two >= 2")
    if not 2 <= W <= 31:
        raise ValueError(f"point: W ({W}) must be in [2, 31]")


def modulus(N, W):
    """The largest prime q < 2^W with q = 1 (mod 2N): q = 2Nk + 1, counting k down."""
    check_point(N, W)
    k = (2 ** W - 2) // (2 * N)
    while k >= 1:
        q = 2 * N * k + 1
        if is_prime(q):
            return q
        k -= 1
    raise ValueError(f"point: no prime q < 2^{W} with q = 1 (mod {2 * N}); raise W or lower N")


def root(N, q):
    """psi = g^((q-1)/2N) mod q for the smallest g >= 2 that makes psi a primitive 2N-th root (psi^N = -1)."""
    g = 2
    while True:
        psi = pow(g, (q - 1) // (2 * N), q)
        if pow(psi, N, q) == q - 1:
            return psi
        g += 1


def powers(base, n, q):
    """[base^0, base^1, ..., base^(n-1)] mod q as uint64, by doubling (log2 n vector steps)."""
    out = np.ones(n, dtype=np.uint64)
    Q = np.uint64(q)
    filled, step = 1, base % q
    while filled < n:
        take = min(filled, n - filled)
        out[filled:filled + take] = out[:take] * np.uint64(step) % Q
        filled += take
        step = step * step % q
    return out


def ntt(a, q, psi):
    """A[j] = sum_i a[i] psi^((2j+1) i) mod q, j in natural order.

    Twists a by psi^i (the negacyclic part), then a radix-2 decimation-in-time DFT with
    omega = psi^2 written breadth-first: row r of X holds the DFT of length m of one residue
    class of indices; each step merges pairs of rows, so the result comes out in natural order
    with no bit reversal.
    """
    n = a.size
    Q = np.uint64(q)
    x = a.astype(np.uint64) * powers(psi, n, q) % Q
    omega = psi * psi % q
    X = x.reshape(1, n)
    while X.shape[0] < n:
        m, half = X.shape[0], X.shape[1] // 2
        even, odd = X[:, :half], X[:, half:]
        t = odd * powers(pow(omega, n // (2 * m), q), m, q)[:, None] % Q
        X = np.vstack([(even + t) % Q, (even + Q - t) % Q])
    return X.reshape(n)
