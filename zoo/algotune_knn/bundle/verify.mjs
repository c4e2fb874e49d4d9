// Verifier of zoo/algotune_knn@1.0.0. Every row of the answer is checked:
//   - every id is an integer in [0, N) and the K ids of a row are distinct;
//   - the exact squared distances of the returned ids are non-decreasing; and
//   - they equal the oracle's sorted distance profile element by element (so any tie-break is fine).
// metrics: {"wrong": rows failing any check, "of": Q}; passed when no row is wrong.
import {squaredDistance} from './knn.mjs';

export default function verify(point, args, expected, actual, accept) {
  const {N, Q, D, K} = point;
  const {db, queries} = args;
  const want = expected.ids;
  const got = actual.ids;
  let wrong = 0;
  const seen = new Set();
  for (let q = 0; q < Q; q += 1) {
    seen.clear();
    let ok = true;
    let previous = -1;
    for (let k = 0; k < K && ok; k += 1) {
      const id = got[q * K + k];
      if (!Number.isInteger(id) || id < 0 || id >= N || seen.has(id)) {
        ok = false;
        break;
      }
      seen.add(id);
      const dist = squaredDistance(db, queries, D, id, q);
      const target = squaredDistance(db, queries, D, want[q * K + k], q);
      if (dist < previous || dist !== target) ok = false;
      previous = dist;
    }
    if (!ok) wrong += 1;
  }
  const allowed = Number(accept?.max_wrong_rows ?? 0);
  return {passed: wrong <= allowed, metrics: {wrong, of: Q}};
}
