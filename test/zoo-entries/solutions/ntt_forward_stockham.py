"""A fast ntt_forward solution (test fixture): whole-stage vectorised NTT with precomputed twiddles.

The per-butterfly loop of the baseline becomes one set of vector operations per stage
(log2 N stages), breadth-first (Stockham-like), so the output comes out in natural order with no
bit reversal. Twiddle tables are built once per (q, psi) and reused: the eval's warm-up calls
build them, the timed calls only read them. Residues stay below q < 2^31, so products of two
are below 2^62 and exact in uint64.
"""
import numpy as np


def init(point):
    return {"key": None}


def _powers(base, n, q):
    out = np.ones(n, dtype=np.uint64)
    filled, step = 1, base % q
    while filled < n:
        take = min(filled, n - filled)
        out[filled:filled + take] = out[:take] * np.uint64(step) % np.uint64(q)
        filled += take
        step = step * step % q
    return out


def _tables(n, q, psi):
    omega = psi * psi % q
    stages = []
    m = 1
    while m < n:
        stages.append(_powers(pow(omega, n // (2 * m), q), m, q)[:, None])
        m *= 2
    return {"twist": _powers(psi, n, q), "stages": stages}


def run(state, inputs):
    q = int(inputs["q"])
    psi = int(inputs["psi"])
    a = inputs["a"]
    rows, n = a.shape
    if state["key"] != (n, q, psi):
        state.update(_tables(n, q, psi), key=(n, q, psi))
    Q = np.uint64(q)
    # X[r, k, :] is the length-m DFT of residue class k of row r; each stage merges pairs of classes.
    X = (a.astype(np.uint64) * state["twist"] % Q).reshape(rows, 1, n)
    for w in state["stages"]:
        m, half = X.shape[1], X.shape[2] // 2
        t = X[:, :, half:] * w
        t %= Q
        out = np.empty((rows, 2 * m, half), dtype=np.uint64)
        np.add(X[:, :, :half], t, out=out[:, :m])
        np.subtract(X[:, :, :half] + Q, t, out=out[:, m:])
        out %= Q
        X = out
    return {"A": X.reshape(rows, n).astype(np.uint32)}
