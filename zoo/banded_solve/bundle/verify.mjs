// Verifier of zoo/banded_solve@1.0.0. Every element of x must be finite, and every right-hand side k
// must have a normwise backward error
//     eta_k = max_i |(A x_k - b_k)_i| / (||A||_inf max_i |x_k,i| + max_i |b_k,i|)
// of at most accept.tolerance (A x summed left to right over the band in f64; every row, every column).
// metrics: {"worst": the largest eta_k, or null when some element is not finite; "column": its k}.
import {normInf, residual} from './band.mjs';

export default function verify(point, args, expected, actual, accept) {
  const {N, P, R} = point;
  const x = actual.x;
  for (const v of x) if (!Number.isFinite(v)) return {passed: false, metrics: {worst: null}};
  const norm = normInf(args.ab, N, P);
  const r = residual(args.ab, N, P, R, x, args.b);
  const rMax = new Float64Array(R);
  const xMax = new Float64Array(R);
  const bMax = new Float64Array(R);
  for (let e = 0; e < N * R; e += 1) {
    const k = e % R; // element e of the row-major N x R arrays is in column k
    rMax[k] = Math.max(rMax[k], Math.abs(r[e]));
    xMax[k] = Math.max(xMax[k], Math.abs(x[e]));
    bMax[k] = Math.max(bMax[k], Math.abs(args.b[e]));
  }
  let worst = 0;
  let column = 0;
  for (let k = 0; k < R; k += 1) {
    // ||A|| >= 1 (the diagonal), so the denominator is 0 only where x_k = b_k = 0, a right answer.
    const eta = rMax[k] / Math.max(norm * xMax[k] + bMax[k], Number.MIN_VALUE);
    if (eta > worst) [worst, column] = [eta, k];
  }
  return {passed: worst <= Number(accept.tolerance), metrics: {worst, column}};
}
