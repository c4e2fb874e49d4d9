// Shared exact arithmetic of the algotune_knn oracle and verifier.

/** Exact squared Euclidean distance between row `i` of `db` and row `q` of `queries` (integers < 2^53). */
export function squaredDistance(db, queries, D, i, q) {
  let sum = 0;
  const a = i * D;
  const b = q * D;
  for (let d = 0; d < D; d += 1) {
    const diff = db[a + d] - queries[b + d];
    sum += diff * diff;
  }
  return sum;
}
