// Oracle of zoo/poly_approx_depth@1.0.0. The score does not depend on it: the verifier evaluates the
// answer against the target function itself. expected/ holds a reference answer for people reading a
// case (and for arbor's probes): Chebyshev interpolation at the n = 2^depth Chebyshev nodes of the
// first kind, c_j = (2 - [j = 0]) / n * sum_i f(cos t_i) cos(j t_i), t_i = pi (i + 1/2) / n; zeros after c_(n-1).
import {target} from './functions.mjs';

export default function oracle(point, args) {
  const family = args.family[0];
  const k = args.k[0];
  const n = 2 ** args.depth[0];
  const coef = new Float64Array(point.C);
  const theta = Array.from({length: n}, (_, i) => (Math.PI * (i + 0.5)) / n);
  const values = theta.map((t) => target(family, k, Math.cos(t)));
  for (let j = 0; j < n; j += 1) {
    let sum = 0;
    for (let i = 0; i < n; i += 1) sum += values[i] * Math.cos(j * theta[i]);
    coef[j] = ((j === 0 ? 1 : 2) / n) * sum;
  }
  return {coef};
}
