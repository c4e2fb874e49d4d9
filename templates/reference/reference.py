"""Reference solver of {{name}}: the baseline the speedup is measured against (numpy sort)."""

import numpy as np


def init(point):
    return {"N": point["N"]}


def run(state, inputs):
    return {"y": np.sort(inputs["x"], kind="quicksort")}


def free(state):
    pass
