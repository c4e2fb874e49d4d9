"""Solution of {{name}}: the file an agent edits.

This placeholder does NOT solve the task: it returns zeros, so every case fails
verification and the score is 0.0. Replace run() with a real solution.
"""

import numpy as np


def init(point):
    """Called once per point, not timed. `point` is a dict such as {"N": 100000}."""
    return {"N": point["N"]}


def run(state, inputs):
    """Timed. inputs["x"] is a float64 array of shape (N,); return {"y": sorted x}."""
    return {"y": np.zeros(state["N"], dtype=np.float64)}


def free(state):
    """Optional clean-up after the last case."""
