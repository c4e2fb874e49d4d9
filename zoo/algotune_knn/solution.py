"""Baseline solution of algotune_knn: exact k nearest neighbours, the naive way.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"N", "Q", "D", "K"}
  run(state, inputs) -> outputs timed; inputs["db"] float32 (N, D), inputs["queries"] float32 (Q, D)
                                returns {"ids": int32 (Q, K)}: the K nearest rows of db per query,
                                nearest first (ties in any order)
  free(state)                   optional

Coordinates are integers in [-2048, 2047] stored as float32. Squared distances are exact in
float64 (and int64) but NOT in float32, so compute them in float64.
"""

import numpy as np

CHUNK = 32  # queries per broadcast block, to bound memory (CHUNK * N * D float64)


def init(point):
    return {"K": int(point["K"])}


def run(state, inputs):
    k = state["K"]
    db = inputs["db"].astype(np.float64)
    queries = inputs["queries"].astype(np.float64)
    ids = np.empty((queries.shape[0], k), dtype=np.int32)
    for start in range(0, queries.shape[0], CHUNK):
        block = queries[start:start + CHUNK]
        # Naive broadcast: every query against every row, then a full sort of each row.
        dist = ((block[:, None, :] - db[None, :, :]) ** 2).sum(axis=2)
        order = np.argsort(dist, axis=1, kind="stable")
        ids[start:start + CHUNK] = order[:, :k]
    return {"ids": ids}


def free(state):
    pass
