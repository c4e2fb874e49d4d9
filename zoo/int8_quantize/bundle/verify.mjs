// Verifier of zoo/int8_quantize@1.0.0. Computes, in double precision, Y = W X and the dequantized
// Yq = diag(scale) q X (q as integers, scale and W, X as the float32 values they hold), and for each
// row r its output scale s_r = sqrt(mean_b Y[r, b]^2). An output element is within when
// |Yq[r, b] - Y[r, b]| <= accept.tolerance * s_r; one that is NaN or infinite never is.
// metrics: {"within": elements within, "of": R B, "error": ||Yq - Y||_F / ||Y||_F (null when not
// finite), "badScales": scales that are NaN or infinite}. A row whose scale is not finite has no
// element within. passed: every element within. The score is the mean of within / of.
export default function verify(point, args, expected, actual, accept) {
  const {R, K, B} = point;
  const tolerance = Number(accept?.tolerance ?? 1e-2);
  const {W, X} = args;
  const {q, scale} = actual;
  const y = new Float64Array(B);
  const yq = new Float64Array(B);
  let within = 0;
  let badScales = 0;
  let diff2 = 0;
  let norm2 = 0;
  for (let r = 0; r < R; r += 1) {
    y.fill(0);
    yq.fill(0);
    for (let k = 0; k < K; k += 1) {
      const w = W[r * K + k];
      const c = q[r * K + k];
      const row = k * B;
      for (let b = 0; b < B; b += 1) {
        y[b] += w * X[row + b];
        yq[b] += c * X[row + b];
      }
    }
    const s = scale[r];
    if (!Number.isFinite(s)) badScales += 1;
    let sum = 0;
    for (let b = 0; b < B; b += 1) sum += y[b] * y[b];
    const bound = tolerance * Math.sqrt(sum / B);
    norm2 += sum;
    for (let b = 0; b < B; b += 1) {
      const d = s * yq[b] - y[b];
      diff2 += d * d;
      if (Math.abs(d) <= bound) within += 1;
    }
  }
  const error = Math.sqrt(diff2 / norm2);
  return {passed: within === R * B, metrics: {within, of: R * B, error: Number.isFinite(error) ? error : null, badScales}};
}
