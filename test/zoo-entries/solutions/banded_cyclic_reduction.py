"""A faster banded_solve: block cyclic reduction, vectorised over all blocks of a level.

A banded matrix of bandwidth P is block tridiagonal with P x P blocks (the last block padded with
the identity). Each level eliminates the odd-numbered block rows from the even ones with batched
small matrix products (np.matmul over a stack of blocks), halving the system; log2(N / P) levels
replace the N-step Python loop of the baseline. The matrix is strictly diagonally dominant by rows,
which block cyclic reduction preserves (Heller, 1976), so no pivoting is needed.
"""

import numpy as np


def init(point):
    return {}


def blocks(ab, p, n, q):
    """The block rows of A as (q, p, p) stacks D (diagonal), L (left) and U (right)."""
    m = q * p
    dense_rows = np.zeros((m, 3 * p))  # dense_rows[i, c] = A[i, (i // p - 1) * p + c]
    i, d = np.meshgrid(np.arange(n), np.arange(-p, p + 1), indexing="ij")
    j = i + d
    inside = (j >= 0) & (j < n)
    column = j - (i // p - 1) * p
    dense_rows[i[inside], column[inside]] = ab[p - d[inside], j[inside]]
    pad = np.arange(n, m)
    dense_rows[pad, pad - (pad // p - 1) * p] = 1.0
    rows = dense_rows.reshape(q, p, 3 * p)
    return rows[:, :, p : 2 * p].copy(), rows[:, :, :p].copy(), rows[:, :, 2 * p :].copy()


def reduce(D, L, U, f):
    """Solve the block tridiagonal system L_k x_{k-1} + D_k x_k + U_k x_{k+1} = f_k."""
    q = len(D)
    if q == 1:
        return np.linalg.solve(D[0], f[0])[None]
    ne, no = (q + 1) // 2, q // 2
    De, Le, Ue, fe = D[0::2], L[0::2], U[0::2], f[0::2]
    Do, Lo, Uo, fo = D[1::2], L[1::2], U[1::2], f[1::2]
    Dinv = np.linalg.inv(Do)
    alpha = Le[1:] @ Dinv[: ne - 1]  # even row 2j eliminates odd row 2j - 1
    gamma = Ue[:no] @ Dinv[:no]  # and odd row 2j + 1
    D2, f2 = De.copy(), fe.copy()
    L2, U2 = np.zeros_like(Le), np.zeros_like(Ue)
    D2[1:] -= alpha @ Uo[: ne - 1]
    L2[1:] = -(alpha @ Lo[: ne - 1])
    f2[1:] -= alpha @ fo[: ne - 1]
    D2[:no] -= gamma @ Lo[:no]
    U2[:no] = -(gamma @ Uo[:no])
    f2[:no] -= gamma @ fo[:no]
    xe = reduce(D2, L2, U2, f2)
    right = np.concatenate([xe[1:], np.zeros_like(xe[:1])])[:no]
    xo = Dinv @ (fo - Lo @ xe[:no] - Uo @ right)
    x = np.empty((q,) + f.shape[1:])
    x[0::2], x[1::2] = xe, xo
    return x


def run(state, inputs):
    ab, b = inputs["ab"], inputs["b"]
    p = (ab.shape[0] - 1) // 2
    n, r = b.shape
    q = -(-n // p)
    D, L, U = blocks(ab, p, n, q)
    f = np.zeros((q * p, r))
    f[:n] = b
    x = reduce(D, L, U, f.reshape(q, p, r))
    return {"x": x.reshape(q * p, r)[:n]}


def free(state):
    pass
