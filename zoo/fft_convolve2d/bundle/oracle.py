"""Oracle of zoo/fft_convolve2d@1.0.0: the exact full 2-D convolution.

out[i, j] = sum_{p, q} image[i - p, j - q] * kernel[p, q], an (N + K - 1)^2 array.

Every drawn value is an integer in [-2^19, 2^19) over 2^20, so out * 2^40 is an integer C with
|C| <= K^2 * 2^38 < 2^52 (K <= 128). The oracle computes C exactly with integer-valued FFT
convolutions: each input is split into 10-bit halves (a = hi * 2^10 + lo, hi in [-2^9, 2^9),
lo in [0, 2^10)), and the three products hi*hi, hi*lo + lo*hi and lo*lo are convolved with float64
real FFTs at a 5-smooth length (2^a 3^b 5^c, at least N + K - 1: 576 where the output side is 542,
where the next power of two, 1024, took twice as long a transform). Their true values are integers; the FFT's rounding error is at
most about c * 2^-53 * log2(L^2) * ||x||_2 * ||y||_2 <= c * 3e-9 * N * K for 10-bit inputs (below
1e-4 * c at the plan's points), so rounding to the nearest integer recovers them exactly. The oracle
checks it: any value farther than 1/8 from an integer stops it with an error instead of writing a
doubtful answer. C = hh * 2^20 + mid * 2^10 + ll is then formed in int64 and divided by 2^40, both
exact. A direct double sum would be exact too (every partial sum is a multiple of 2^-40 below
2^13), but costs N^2 K^2; the entry's tests check this oracle against one.
"""

import numpy as np

SCALE = 2.0 ** 20


def integers(values):
    """values * 2^20 as int64; refuses a value off the drawn grid (then this oracle would not be exact)."""
    scaled = values * SCALE
    ints = np.rint(scaled)
    if not np.array_equal(ints, scaled) or np.abs(ints).max(initial=0) > 2 ** 19:
        raise ValueError("an input is not a multiple of 2^-20 in [-0.5, 0.5]")
    return ints.astype(np.int64)


def exact_convolution(x_spectrum, y_spectrum, shape, m):
    """The integer-valued convolution whose spectra are given, rounded and checked, as int64 (m, m)."""
    values = np.fft.irfft2(x_spectrum * y_spectrum, s=shape)[:m, :m]
    rounded = np.rint(values)
    off = np.abs(values - rounded).max(initial=0)
    if not off < 0.125:
        raise ArithmeticError(f"FFT convolution is {off} away from an integer: too inexact to round")
    return rounded.astype(np.int64)


def smooth_length(m):
    """The smallest 2^a 3^b 5^c >= m: lengths numpy's FFT does fast, and far fewer points than the next power of two."""
    best = 1 << (m - 1).bit_length()
    p3 = 1
    while p3 < best:
        p35 = p3
        while p35 < best:
            length = p35
            while length < m:
                length *= 2
            best = min(best, length)
            p35 *= 5
        p3 *= 3
    return best


def oracle(point, args):
    n, k = point["N"], point["K"]
    m = n + k - 1
    length = smooth_length(m)
    shape = (length, length)
    a = integers(args["image"])
    b = integers(args["kernel"])
    # Arithmetic shift and mask: a = hi * 2^10 + lo exactly, for negative values too.
    a_hi, a_lo = np.fft.rfft2((a >> 10).astype(np.float64), s=shape), np.fft.rfft2((a & 1023).astype(np.float64), s=shape)
    b_hi, b_lo = np.fft.rfft2((b >> 10).astype(np.float64), s=shape), np.fft.rfft2((b & 1023).astype(np.float64), s=shape)
    hh = exact_convolution(a_hi, b_hi, shape, m)
    ll = exact_convolution(a_lo, b_lo, shape, m)
    mid = exact_convolution(a_hi * b_lo + a_lo * b_hi, 1.0, shape, m)
    c = (hh << 20) + (mid << 10) + ll
    return {"out": c.astype(np.float64) / 2.0 ** 40}
