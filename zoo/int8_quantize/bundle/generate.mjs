// Generator of zoo/int8_quantize@1.0.0: a weight matrix W (R x K) with outlier weights and a
// calibration batch X (K x B) with outlier channels, as in a transformer's linear layers.
// Draws, in order (u = stream.float64s: bits(53) / 2^53, uniform in [0, 1)):
//   1. R K times 5 uniforms, element by element: w = (u1 + u2 + u3 + u4 - 2) * sqrt(3) (mean 0,
//      variance 1), times 6 when u5 < 1/64 (an outlier weight);
//   2. K uniforms: channel k has scale 8 when u < 1/16, else 1;
//   3. K B times 4 uniforms, element by element: x = (u1 + u2 + u3 + u4 - 2) * sqrt(3) * scale_k.
// Each value is rounded once to float32 (Math.fround) at the end; every step before is exact or
// one IEEE operation, so every implementation draws the same matrices.
const SQRT3 = 1.7320508075688772;

export default function generate(point, stream) {
  const {R, K, B} = point;
  const W = new Float32Array(R * K);
  const uw = stream.float64s(5 * R * K);
  for (let i = 0; i < R * K; i += 1) {
    const u = 5 * i;
    const w = (uw[u] + uw[u + 1] + uw[u + 2] + uw[u + 3] - 2) * SQRT3;
    W[i] = Math.fround(uw[u + 4] < 1 / 64 ? w * 6 : w);
  }
  const channel = stream.float64s(K);
  const X = new Float32Array(K * B);
  const ux = stream.float64s(4 * K * B);
  for (let k = 0; k < K; k += 1) {
    const scale = channel[k] < 1 / 16 ? 8 : 1;
    for (let b = 0; b < B; b += 1) {
      const u = 4 * (k * B + b);
      X[k * B + b] = Math.fround((ux[u] + ux[u + 1] + ux[u + 2] + ux[u + 3] - 2) * SQRT3 * scale);
    }
  }
  return {W, X};
}
