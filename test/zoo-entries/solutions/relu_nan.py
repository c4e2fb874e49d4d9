"""An adversarial relu_poly answer (test fixture): NaN coefficients."""
import numpy as np


def init(point):
    return int(point["D"])


def run(state, inputs):
    return {"coef": np.full(state + 1, np.nan)}
