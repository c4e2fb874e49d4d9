// Oracle of zoo/toeplitz_solve@1.0.0: x = T^-1 b by the Levinson recursion for a general
// (nonsymmetric) Toeplitz matrix, followed by two steps of iterative refinement with exact-order
// residuals. The verifier checks the solution's residual itself; expected/ is for reference only.
import {multiply} from './toeplitz.mjs';

/** Levinson-Durbin for nonsymmetric Toeplitz T (first column c, first row r), solving T x = y. */
function levinson(c, r, y) {
  const N = y.length;
  let f = new Float64Array(N); // forward vector
  let g = new Float64Array(N); // backward vector
  const x = new Float64Array(N);
  f[0] = 1 / c[0];
  g[0] = 1 / c[0];
  x[0] = y[0] / c[0];
  for (let n = 1; n < N; n += 1) {
    // ef = last row of T_{n+1} times [f; 0]; eb = first row of T_{n+1} times [0; g].
    let ef = 0;
    let eb = 0;
    for (let i = 0; i < n; i += 1) {
      ef += c[n - i] * f[i];
      eb += r[i + 1] * g[i];
    }
    const denom = 1 - ef * eb;
    const nf = new Float64Array(N);
    const ng = new Float64Array(N);
    for (let i = 0; i <= n; i += 1) {
      const fi = i < n ? f[i] : 0;
      const gi = i > 0 ? g[i - 1] : 0;
      nf[i] = (fi - ef * gi) / denom;
      ng[i] = (gi - eb * fi) / denom;
    }
    f = nf;
    g = ng;
    // ex = last row of T_{n+1} times [x; 0]
    let ex = 0;
    for (let i = 0; i < n; i += 1) ex += c[n - i] * x[i];
    const scale = y[n] - ex;
    for (let i = 0; i <= n; i += 1) x[i] += scale * g[i];
  }
  return x;
}

export default function oracle(point, args) {
  const {c, r, b} = args;
  const x = levinson(c, r, b);
  for (let step = 0; step < 2; step += 1) {
    const y = multiply(c, r, x);
    const residual = new Float64Array(b.length);
    for (let i = 0; i < b.length; i += 1) residual[i] = b[i] - y[i];
    const dx = levinson(c, r, residual);
    for (let i = 0; i < b.length; i += 1) x[i] += dx[i];
  }
  return {x};
}
