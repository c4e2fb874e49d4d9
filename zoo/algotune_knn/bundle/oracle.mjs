// Oracle of zoo/algotune_knn@1.0.0: for every query, the K database rows with the smallest exact
// squared distance, nearest first; ties broken by the smaller index.
import {squaredDistance} from './knn.mjs';

export default function oracle(point, args) {
  const {N, Q, D, K} = point;
  const {db, queries} = args;
  const ids = new Int32Array(Q * K);
  const bestD = new Float64Array(K);
  const bestI = new Int32Array(K);
  for (let q = 0; q < Q; q += 1) {
    let count = 0;
    for (let i = 0; i < N; i += 1) {
      const dist = squaredDistance(db, queries, D, i, q);
      // Rows come in increasing index order, so an equal distance never displaces a kept row.
      if (count === K && dist >= bestD[K - 1]) continue;
      let j = count < K ? count : K - 1;
      if (count < K) count += 1;
      while (j > 0 && bestD[j - 1] > dist) {
        bestD[j] = bestD[j - 1];
        bestI[j] = bestI[j - 1];
        j -= 1;
      }
      bestD[j] = dist;
      bestI[j] = i;
    }
    ids.set(bestI, q * K);
  }
  return {ids};
}
