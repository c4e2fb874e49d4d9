// Generator of zoo/shortest_path@1.0.0: a road-like directed graph on N nodes with exactly M arcs.
// Nodes sit on a grid W = ceil(sqrt(N)) wide (node v at row floor(v / W), column v mod W). The
// candidate arcs are the grid's street arcs, both directions of every pair of horizontal or
// vertical neighbours, listed by tail node, then right, left, down, up: K of them.
//   M <= K: Fisher-Yates shuffle of the candidate list with stream.below (i = K-1 down to 1, swap
//           i with below(i + 1)), then its first M arcs are the graph (closed streets and one-way
//           streets; some nodes lose every arc in and become unreachable).
//   M >  K: every candidate, then M - K "highway" arcs, each tail = below(N), head = below(N)
//           (long links; parallel arcs and self-loops may occur).
// Arcs are sorted by (tail, head, position in the list above) into CSR. Then one weight per arc in
// CSR order, bits(16): an integer in [0, 65535] (zero-weight arcs occur). Last, source = below(N).
/** The candidate street arcs of the grid, as [tails, heads]. */
export function streets(N) {
  const W = Math.ceil(Math.sqrt(N));
  const tails = [];
  const heads = [];
  for (let v = 0; v < N; v += 1) {
    const col = v % W;
    const neighbours = [col + 1 < W && v + 1 < N ? v + 1 : -1, col > 0 ? v - 1 : -1, v + W < N ? v + W : -1, v - W];
    for (const u of neighbours) {
      if (u < 0) continue;
      tails.push(v);
      heads.push(u);
    }
  }
  return [tails, heads];
}

export default function generate(point, stream) {
  const {N, M} = point;
  const [tails, heads] = streets(N);
  const K = tails.length;
  const order = Array.from({length: K}, (_, i) => i);
  const arcs = [];
  if (M <= K) {
    for (let i = K - 1; i >= 1; i -= 1) {
      const j = Number(stream.below(i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (let k = 0; k < M; k += 1) arcs.push([tails[order[k]], heads[order[k]], k]);
  } else {
    for (let k = 0; k < K; k += 1) arcs.push([tails[k], heads[k], k]);
    for (let k = K; k < M; k += 1) arcs.push([Number(stream.below(N)), Number(stream.below(N)), k]);
  }
  arcs.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const indptr = new Int32Array(N + 1);
  const indices = new Int32Array(M);
  for (let k = 0; k < M; k += 1) {
    indptr[arcs[k][0] + 1] += 1;
    indices[k] = arcs[k][1];
  }
  for (let v = 0; v < N; v += 1) indptr[v + 1] += indptr[v];
  const weights = new Int32Array(M);
  for (let k = 0; k < M; k += 1) weights[k] = Number(stream.bits(16));
  const source = Int32Array.of(Number(stream.below(N)));
  return {indptr, indices, weights, source};
}
