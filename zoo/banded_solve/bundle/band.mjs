// Shared by the generator, the oracle and the verifier of zoo/banded_solve@1.0.0.
// The band ab is (2P + 1) x N, row-major: ab[(P + i - j) * N + j] = A[i, j] for |i - j| <= P.

/** Row i of A: [jLo, values of A[i, jLo..jHi]] with jLo = max(0, i - P), jHi = min(N - 1, i + P). */
export function row(ab, N, P, i) {
  const lo = Math.max(0, i - P);
  const hi = Math.min(N - 1, i + P);
  const values = [];
  for (let j = lo; j <= hi; j += 1) values.push(ab[(P + i - j) * N + j]);
  return [lo, values];
}

/** ||A||_inf: the largest row sum of |A[i, j]|. */
export function normInf(ab, N, P) {
  let norm = 0;
  for (let i = 0; i < N; i += 1) {
    let sum = 0;
    for (const v of row(ab, N, P, i)[1]) sum += Math.abs(v);
    norm = Math.max(norm, sum);
  }
  return norm;
}

/** The residual A x - b (N x R, row-major), each A x summed left to right over the band in f64. */
export function residual(ab, N, P, R, x, b) {
  const r = new Float64Array(N * R);
  for (let i = 0; i < N; i += 1) {
    const [lo, values] = row(ab, N, P, i);
    for (let k = 0; k < R; k += 1) {
      let sum = 0;
      for (let t = 0; t < values.length; t += 1) sum += values[t] * x[(lo + t) * R + k];
      r[i * R + k] = sum - b[i * R + k];
    }
  }
  return r;
}
