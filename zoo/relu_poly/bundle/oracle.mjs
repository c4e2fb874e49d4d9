// Oracle of zoo/relu_poly@1.0.0. The score does not depend on it: the verifier evaluates the
// solution's coefficients itself. expected/ holds a reference answer for people reading a case:
// the degree-D truncation of the Chebyshev series of relu(x) = (x + |x|) / 2,
//   c0 = 1/pi, c1 = 1/2, c_2k = (2/pi) (-1)^(k+1) / (4k^2 - 1), odd c_k = 0 for k >= 3,
// computed with + - * / only (bit-identical everywhere).
export default function oracle(point) {
  const {D} = point;
  const coef = new Float64Array(D + 1);
  coef[0] = 1 / Math.PI;
  if (D >= 1) coef[1] = 0.5;
  for (let k = 1; 2 * k <= D; k += 1) coef[2 * k] = ((k % 2 === 1 ? 2 : -2) / Math.PI) / (4 * k * k - 1);
  return {coef};
}
