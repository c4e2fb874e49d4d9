// The target functions of zoo/poly_approx_depth@1.0.0, shared by the oracle and the verifier.
// family 0: sigmoid(k x) = 1 / (1 + exp(-k x)); 1: tanh(k x); 2: x sigmoid(k x) = x / (1 + exp(-k x));
// 3: exp(-k x^2). Each is bounded by 1 in absolute value on [-1, 1], so the zero polynomial is off by
// at most 1 and an error capped at 1 loses nothing a real answer could score.
export const FAMILIES = 4;

export function target(family, k, x) {
  switch (family) {
    case 0:
      return 1 / (1 + Math.exp(-k * x));
    case 1:
      return Math.tanh(k * x);
    case 2:
      return x / (1 + Math.exp(-k * x));
    case 3:
      return Math.exp(-k * x * x);
    default:
      throw new RangeError(`family ${family} is not one of 0 .. ${FAMILIES - 1}`);
  }
}

/** p(x) = sum_j coef[j] T_j(x) by Clenshaw's recurrence, in this fixed order (IEEE double). */
export function clenshaw(coef, n, x) {
  let b1 = 0;
  let b2 = 0;
  for (let j = n - 1; j >= 1; j -= 1) {
    const t = 2 * x * b1 - b2 + coef[j];
    b2 = b1;
    b1 = t;
  }
  return x * b1 - b2 + coef[0];
}

/** Point i of the verifier's grid: cos(pi i / (G - 1)), i = 0 .. G - 1 (1 down to -1, denser near the ends). */
export function gridPoint(i, G) {
  if (2 * i === G - 1) return 0;
  return Math.cos((Math.PI * i) / (G - 1));
}
