"""A fast polymul_negacyclic solution (test fixture): the negacyclic NTT in numpy.

q < 2^31, so a product of two residues is below 2^62 and (a * b) % q is exact in uint64.
"""
import numpy as np


def _modulus(n, w):
    def prime(m):
        d = 3
        while d * d <= m:
            if m % d == 0:
                return False
            d += 2
        return m > 2 and m % 2 == 1
    k = (2 ** w - 2) // (2 * n)
    while not prime(k * 2 * n + 1):
        k -= 1
    return k * 2 * n + 1


def _stages(omega, n, q):
    stages = []
    length = 2
    while length <= n:
        half = length // 2
        w = pow(omega, n // length, q)
        stages.append((half, np.array([pow(w, k, q) for k in range(half)], dtype=np.uint64)))
        length *= 2
    return stages


def init(point):
    n, q = int(point["N"]), _modulus(int(point["N"]), int(point["W"]))
    g = 2
    while True:
        psi = pow(g, (q - 1) // (2 * n), q)
        if pow(psi, n, q) == q - 1:
            break
        g += 1
    omega = psi * psi % q
    bits = n.bit_length() - 1
    rev = np.array([int(format(i, f"0{bits}b")[::-1], 2) for i in range(n)])
    psi_pow = np.array([pow(psi, i, q) for i in range(n)], dtype=np.uint64)
    ninv = pow(n, q - 2, q)
    post = np.array([ninv * pow(psi, (2 * n - i) % (2 * n), q) % q for i in range(n)], dtype=np.uint64)
    return {"q": np.uint64(q), "rev": rev, "pre": psi_pow, "post": post,
            "fwd": _stages(omega, n, q), "inv": _stages(pow(omega, q - 2, q), n, q)}


def _ntt(x, stages, rev, q):
    x = x[rev]
    for half, w in stages:
        x = x.reshape(-1, 2 * half)
        u = x[:, :half]
        v = (x[:, half:] * w) % q
        x = np.concatenate([(u + v) % q, (u + q - v) % q], axis=1)
    return x.reshape(-1)


def run(state, inputs):
    q = state["q"]
    a = (inputs["a"].astype(np.uint64) * state["pre"]) % q
    b = (inputs["b"].astype(np.uint64) * state["pre"]) % q
    fa = _ntt(a, state["fwd"], state["rev"], q)
    fb = _ntt(b, state["fwd"], state["rev"], q)
    c = _ntt((fa * fb) % q, state["inv"], state["rev"], q)
    return {"c": ((c * state["post"]) % q).astype(np.uint32)}
