// Oracle of zoo/shortest_path@1.0.0: Dijkstra's algorithm with a binary heap over the CSR arrays.
// Distances are sums of at most N - 1 weights below 2^31, so below 2^51 for every allowed point:
// exact in a double. Unreachable nodes get -1.

/** Shortest distances from `source` (doubles; Infinity where unreachable). */
export function dijkstra(indptr, indices, weights, source) {
  const N = indptr.length - 1;
  const dist = new Float64Array(N).fill(Infinity);
  const done = new Uint8Array(N);
  const heapKey = [];
  const heapNode = [];
  const push = (key, node) => {
    let i = heapKey.length;
    heapKey.push(key);
    heapNode.push(node);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heapKey[parent] <= key) break;
      heapKey[i] = heapKey[parent];
      heapNode[i] = heapNode[parent];
      i = parent;
    }
    heapKey[i] = key;
    heapNode[i] = node;
  };
  const pop = () => {
    const top = heapNode[0];
    const key = heapKey.pop();
    const node = heapNode.pop();
    const size = heapKey.length;
    if (size > 0) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && heapKey[child + 1] < heapKey[child]) child += 1;
        if (heapKey[child] >= key) break;
        heapKey[i] = heapKey[child];
        heapNode[i] = heapNode[child];
        i = child;
      }
      heapKey[i] = key;
      heapNode[i] = node;
    }
    return top;
  };
  dist[source] = 0;
  push(0, source);
  while (heapKey.length > 0) {
    const u = pop();
    if (done[u]) continue;
    done[u] = 1;
    for (let k = indptr[u]; k < indptr[u + 1]; k += 1) {
      const v = indices[k];
      const candidate = dist[u] + weights[k];
      if (candidate < dist[v]) {
        dist[v] = candidate;
        push(candidate, v);
      }
    }
  }
  return dist;
}

export default function oracle(point, args) {
  const dist = dijkstra(args.indptr, args.indices, args.weights, args.source[0]);
  return {dist: BigInt64Array.from(dist, (d) => (d === Infinity ? -1n : BigInt(d)))};
}
