"""Baseline solution of shortest_path: Dijkstra's algorithm with heapq, straight over the CSR arrays.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"N": nodes, "M": arcs}
  run(state, inputs) -> outputs timed; inputs["indptr"]: int32 (N+1,), inputs["indices"]: int32 (M,),
                                inputs["weights"]: int32 (M,) (each >= 0), inputs["source"]: int32 ()
                                returns {"dist": int64 (N,)}: the shortest distance from source to
                                each node, -1 where no path exists
  free(state)                   optional

The arcs leaving node u are k = indptr[u] .. indptr[u+1]-1, from u to indices[k], of weight weights[k].
"""

import heapq

import numpy as np


def init(point):
    return {}


def run(state, inputs):
    indptr, indices, weights = inputs["indptr"], inputs["indices"], inputs["weights"]
    source = int(inputs["source"])
    n = len(indptr) - 1
    unreached = np.iinfo(np.int64).max
    dist = np.full(n, unreached, dtype=np.int64)
    dist[source] = 0
    done = np.zeros(n, dtype=bool)
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            nd = d + weights[k]
            if nd < dist[v]:
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    dist[dist == unreached] = -1
    return {"dist": dist}


def free(state):
    pass
