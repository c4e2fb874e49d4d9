"""Baseline solution of int8_quantize: per-row absmax scaling with round-to-nearest.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"R": 128, "K": 128, "B": 256}
  run(state, inputs) -> outputs inputs["W"]: float32 (R, K), the weights
                                inputs["X"]: float32 (K, B), the calibration batch
                                returns {"q": int8 (R, K), "scale": float32 (R,)}: row r of W is
                                replaced by scale[r] * q[r, :]
  free(state)                   optional

The score of a case is the share of the R x B elements of W X that the dequantized matrix reproduces
to within 1% of their row's RMS (higher is better). This baseline ignores X.
"""

import numpy as np


def init(point):
    return None


def run(state, inputs):
    W = inputs["W"]
    scale = (np.abs(W).max(axis=1) / np.float32(127)).astype(np.float32)
    safe = np.where(scale > 0, scale, np.float32(1))
    q = np.clip(np.rint(W / safe[:, None]), -127, 127).astype(np.int8)
    return {"q": q, "scale": scale}


def free(state):
    pass
