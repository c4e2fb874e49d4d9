"""Reference solver of fft_convolve2d (protected; identical to the baseline solution.py).

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"N", "K"}
  run(state, inputs) -> outputs timed; inputs["image"]: float64 (N, N), inputs["kernel"]: float64 (K, K)
                                returns {"out": float64 (N + K - 1, N + K - 1)}, the full linear
                                convolution out[i, j] = sum_{p, q} image[i - p, j - q] * kernel[p, q];
                                every element within 1e-12 * ||image||_2 * ||kernel||_2 of the exact value
  free(state)                   optional
"""

import numpy as np


def init(point):
    return {}


def run(state, inputs):
    image, kernel = inputs["image"], inputs["kernel"]
    m = image.shape[0] + kernel.shape[0] - 1
    # Zero-padding both to the full output size makes the cyclic convolution the linear one.
    spectrum = np.fft.fft2(image, s=(m, m)) * np.fft.fft2(kernel, s=(m, m))
    return {"out": np.fft.ifft2(spectrum).real}


def free(state):
    pass
