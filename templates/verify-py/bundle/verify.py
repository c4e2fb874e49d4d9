"""Verifier of {{name}}: how right one answer is.

correct = the positions where y equals x sorted ascending (a NaN is never right), of = N;
the score is the mean of correct / of.
"""
import numpy as np


def verify(point, args, expected, actual, accept):
    want, got = expected["y"], actual["y"]
    correct = int(np.count_nonzero(got == want))
    return {"passed": correct == want.size, "metrics": {"correct": correct, "of": int(want.size)}}
