"""Generator of zoo/ntt_forward@1.0.0: a batch of B polynomials to transform.

a: B x N coefficients, row-major (polynomial 0 first), each below(q) from the stream, in order.
q (the largest prime below 2^W with q = 1 mod 2N) and psi (the primitive 2N-th root of
modular.root) are derived from the point and consume nothing from the stream.
"""
from modular import modulus, root


def generate(point, stream):
    B, N, W = point["B"], point["N"], point["W"]
    q = modulus(N, W)
    return {"a": stream.ints("u32", B * N, 0, q - 1).reshape(B, N), "q": q, "psi": root(N, q)}
