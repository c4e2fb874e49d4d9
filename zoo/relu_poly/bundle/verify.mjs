// Verifier of zoo/relu_poly@1.0.0. Evaluates the answer p(x) = sum_k coef[k] T_k(x) at every one of
// the M points by Clenshaw's recurrence in this fixed order (IEEE double, left to right):
//   b1 = b2 = 0;  for k = D .. 1: t = 2 * x * b1 - b2 + coef[k]; b2 = b1; b1 = t
//   p = x * b1 - b2 + coef[0]
// and counts the points with |p(x) - max(x, 0)| <= accept.tolerance. A NaN or infinite value is
// never within. metrics: {"within": n, "of": M, "worst": max error (null if any value is not finite)}.
// passed: every point within. The entry's score is the mean of within / of over the cases.
export function evaluate(coef, x) {
  const D = coef.length - 1;
  let b1 = 0;
  let b2 = 0;
  for (let k = D; k >= 1; k -= 1) {
    const t = 2 * x * b1 - b2 + coef[k];
    b2 = b1;
    b1 = t;
  }
  return x * b1 - b2 + coef[0];
}

export default function verify(point, args, expected, actual, accept) {
  const {M} = point;
  const tolerance = Number(accept?.tolerance ?? 1e-3);
  const coef = actual.coef;
  const x = args.x;
  let within = 0;
  let worst = 0;
  let finite = true;
  for (let i = 0; i < M; i += 1) {
    const err = Math.abs(evaluate(coef, x[i]) - Math.max(x[i], 0));
    if (!Number.isFinite(err)) {
      finite = false;
      continue;
    }
    if (err <= tolerance) within += 1;
    if (err > worst) worst = err;
  }
  return {passed: within === M, metrics: {within, of: M, worst: finite ? worst : null}};
}
