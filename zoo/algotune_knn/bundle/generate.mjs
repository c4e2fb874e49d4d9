// Generator of zoo/algotune_knn@1.0.0: k nearest neighbours.
// Draws every coordinate as bits(12) - 2048, an integer in [-2048, 2047] stored exactly as f32:
// first db (N x D, row-major), then queries (Q x D, row-major). Squared distances of such points
// are integers below 2^53 (exact in f64 and int64), but they are not exact in f32.
export default function generate(point, stream) {
  const {N, Q, D, K} = point;
  if (K > N) throw new RangeError(`point: K (${K}) must not exceed N (${N})`);
  const db = new Float32Array(N * D);
  for (let i = 0; i < db.length; i += 1) db[i] = Number(stream.bits(12)) - 2048;
  const queries = new Float32Array(Q * D);
  for (let i = 0; i < queries.length; i += 1) queries[i] = Number(stream.bits(12)) - 2048;
  return {db, queries};
}
