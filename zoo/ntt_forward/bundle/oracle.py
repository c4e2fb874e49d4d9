"""Oracle of zoo/ntt_forward@1.0.0: the forward negacyclic NTT of each row, natural order (modular.ntt)."""
import numpy as np

from modular import ntt


def oracle(point, args):
    q, psi = int(args["q"]), int(args["psi"])
    return {"A": np.stack([ntt(row, q, psi) for row in args["a"]]).astype(np.uint32)}
