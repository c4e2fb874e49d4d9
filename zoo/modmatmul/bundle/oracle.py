"""Oracle of zoo/modmatmul@1.0.0: C = A B mod q, exact (modular.modmatmul)."""
import numpy as np

from modular import modmatmul


def oracle(point, args):
    return {"C": modmatmul(args["A"], args["B"], int(args["q"])).astype(np.int64)}
