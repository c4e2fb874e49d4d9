"""Baseline solution of modmatmul: the integer matrix product on 15-bit halves of B.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"M", "K", "N", "W"}
  run(state, inputs) -> outputs timed; inputs["A"]: int64 (M, K), inputs["B"]: int64 (K, N), entries in [0, q);
                                inputs["q"]: int64 () the prime modulus, q < 2^W <= 2^31
                                returns {"C": int64 (M, N)}: A @ B mod q, every entry in [0, q)
                                (compared byte for byte)
  free(state)                   optional

(A @ B) % q is wrong: a sum of K products below q^2 ~ 2^60 overflows int64 (silently) once K > 8.
"""

import numpy as np


def init(point):
    return {}


def run(state, inputs):
    A = inputs["A"]
    B = inputs["B"]
    q = int(inputs["q"])
    # B = 2^15 hi + lo with lo < 2^15 and hi < 2^16 (q < 2^31). A product A[i, k] * lo[k, j] is below
    # 2^46, so a sum of K <= 4096 of them stays below 2^58: exact in int64, and the same for hi.
    lo = B & 0x7FFF
    hi = B >> 15
    c_lo = (A @ lo) % q
    c_hi = (A @ hi) % q
    # c_hi * 2^15 < 2^46: no overflow before the last reduction.
    return {"C": (c_hi * 32768 + c_lo) % q}


def free(state):
    pass
