// Shared by the oracle and the verifier of zoo/toeplitz_solve@1.0.0.

/** y = T x for the Toeplitz matrix with first column c and first row r, summed left to right. */
export function multiply(c, r, x) {
  const N = x.length;
  const y = new Float64Array(N);
  for (let i = 0; i < N; i += 1) {
    let sum = 0;
    for (let j = 0; j < i; j += 1) sum += c[i - j] * x[j];
    for (let j = i; j < N; j += 1) sum += r[j - i] * x[j];
    y[i] = sum;
  }
  return y;
}

/** max_i |y_i - b_i| / max_i |b_i| (the denominator is 1 when b = 0); NaN when anything is not finite. */
export function relativeResidual(c, r, x, b) {
  for (const v of x) if (!Number.isFinite(v)) return NaN;
  const y = multiply(c, r, x);
  let num = 0;
  let den = 0;
  for (let i = 0; i < b.length; i += 1) {
    num = Math.max(num, Math.abs(y[i] - b[i]));
    den = Math.max(den, Math.abs(b[i]));
  }
  return num / (den || 1);
}
