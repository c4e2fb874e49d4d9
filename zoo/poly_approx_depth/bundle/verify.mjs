// Verifier of zoo/poly_approx_depth@1.0.0. An answer is valid when its C coefficients (the bundle host
// has checked the length and dtype) are finite and every c_j with j >= 2^depth is zero (the depth budget). A valid answer is evaluated by Clenshaw's
// recurrence in a fixed order at every point of the grid cos(pi i / (G - 1)), i = 0 .. G - 1, and
// compared with the target function there.
// metrics: {"error": largest |p(x) - f(x)| on the grid, capped at 1 (1 for an invalid answer),
//           "one": 1, "worst": the uncapped largest error (null for an invalid answer),
//           "budget": the number of coefficients allowed, "invalid": why, for an invalid answer}
// passed: valid and within accept.tolerance everywhere. The score is the mean of error / one.
import {clenshaw, gridPoint, target} from './functions.mjs';

function invalid(n, why) {
  return {passed: false, metrics: {error: 1, one: 1, worst: null, budget: n, invalid: why}};
}

export default function verify(point, args, expected, actual, accept) {
  const {C, G} = point;
  const tolerance = Number(accept?.tolerance ?? 1e-2);
  const coef = actual.coef;
  const family = args.family[0];
  const k = args.k[0];
  const n = 2 ** args.depth[0];
  for (let j = 0; j < C; j += 1) {
    if (!Number.isFinite(coef[j])) return invalid(n, `coef[${j}] is not finite`);
    if (j >= n && coef[j] !== 0) return invalid(n, `coef[${j}] is not 0 but depth ${args.depth[0]} allows only c_0 .. c_${n - 1}`);
  }
  let worst = 0;
  for (let i = 0; i < G; i += 1) {
    const x = gridPoint(i, G);
    const err = Math.abs(clenshaw(coef, n, x) - target(family, k, x));
    // NaN (an overflow of huge coefficients) is never within: it makes the error the cap.
    if (!(err <= worst)) worst = Number.isNaN(err) ? Infinity : err;
  }
  const error = Math.min(worst, 1);
  return {passed: worst <= tolerance, metrics: {error, one: 1, worst: Number.isFinite(worst) ? worst : null, budget: n}};
}
