import numpy as np
from heapq import heappop, heappush

def init(point):
    return {"shift": max(1, int(point["N"]).bit_length())}

def run(state, inputs):
    shift = state["shift"]
    mask = (1 << shift) - 1
    indptr = inputs["indptr"].tolist()
    n = len(indptr) - 1
    packed = ((inputs["weights"].astype(np.int64) << shift) | inputs["indices"]).tolist()
    source = int(inputs["source"])
    unreached = 1 << 62
    best = [unreached] * n
    best[source] = source
    heap = [source]
    pop, push = heappop, heappush
    while heap:
        key = pop(heap)
        u = key & mask
        if key != best[u]:
            continue
        base = key - u
        for a in packed[indptr[u]:indptr[u + 1]]:
            nk = base + a
            if nk < best[nk & mask]:
                best[nk & mask] = nk
                push(heap, nk)
    keys = np.array(best, dtype=np.int64)
    return {"dist": np.where(keys == unreached, -1, keys >> shift)}
