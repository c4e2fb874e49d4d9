"""Generator of zoo/modmatmul@1.0.0: two matrices of residues mod q.

A (M x K, row-major) first, then B (K x N), every entry below(q) from the stream, in order.
q (the largest prime below 2^W) is derived from the point and consumes nothing from the stream.
"""
from modular import modulus


def generate(point, stream):
    M, K, N = point["M"], point["K"], point["N"]
    q = modulus(point["W"])
    A = stream.ints("i64", M * K, 0, q - 1).reshape(M, K)
    B = stream.ints("i64", K * N, 0, q - 1).reshape(K, N)
    return {"A": A, "B": B, "q": q}
