"""algotune_knn's baseline, made slower by a set fraction of its own CPU time (compare-power's candidate).

The baseline's work, then a spin on the thread's CPU clock until SLOWER x that work has passed:
on the CPU clock the case costs (1 + SLOWER) x the baseline's, whatever the machine does.
"""

import time

import numpy as np

SLOWER = 0.02  # the fraction; compare-power writes its own value here
CHUNK = 32


def init(point):
    return {"K": int(point["K"])}


def run(state, inputs):
    start = time.thread_time()
    k = state["K"]
    db = inputs["db"].astype(np.float64)
    queries = inputs["queries"].astype(np.float64)
    ids = np.empty((queries.shape[0], k), dtype=np.int32)
    for first in range(0, queries.shape[0], CHUNK):
        block = queries[first:first + CHUNK]
        dist = ((block[:, None, :] - db[None, :, :]) ** 2).sum(axis=2)
        order = np.argsort(dist, axis=1, kind="stable")
        ids[first:first + CHUNK] = order[:, :k]
    until = start + (1 + SLOWER) * (time.thread_time() - start)
    while time.thread_time() < until:
        pass
    return {"ids": ids}
