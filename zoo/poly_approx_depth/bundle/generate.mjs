// Generator of zoo/poly_approx_depth@1.0.0: one target function and depth budget per case.
// Draws, in order: family = below(4); depth = 3 + below(dmax - 2) where C = 2^dmax; r = bits(53) / 2^53
// in [0, 1). With n = 2^depth coefficients allowed, the steepness k is chosen so that the best error
// lies roughly between 1e-6 and 1e-1 at every depth:
//   sigmoid, x sigmoid: k = n (0.25 + r);   tanh: k = n (0.25 + r) / 2;   exp(-k x^2): k = n^2 / (4 (2.3 + 11.5 (1 - r))).
// Every step is one IEEE operation on exact inputs, so every implementation draws the same k.
export default function generate(point, stream) {
  const {C} = point;
  const dmax = Math.log2(C);
  if (!Number.isInteger(dmax) || dmax < 3) throw new RangeError(`point: C (${C}) must be a power of two >= 8`);
  const family = Number(stream.below(4));
  const depth = 3 + Number(stream.below(dmax - 2));
  const r = Number(stream.bits(53)) / 9007199254740992;
  const n = 2 ** depth;
  let k;
  if (family === 0 || family === 2) k = n * (0.25 + r);
  else if (family === 1) k = (n * (0.25 + r)) / 2;
  else k = (n * n) / (4 * (2.3 + 11.5 * (1 - r)));
  return {family: Int32Array.of(family), k: Float64Array.of(k), depth: Int32Array.of(depth)};
}
