// Oracle of zoo/banded_solve@1.0.0: banded Gaussian elimination without pivoting (stable here: A is
// strictly diagonally dominant by rows, so every pivot is nonzero and the growth factor is at most
// 2), then one step of iterative refinement. The verifier checks the answer's residual itself;
// expected/ is for reference only.
import {residual, row} from './band.mjs';

/** Solve A X = B (N x R, row-major) by elimination on a dense copy of the band rows. */
function solve(ab, N, P, R, B) {
  const W = 2 * P + 1;
  const band = new Float64Array(N * W); // band[i * W + P + (j - i)] = A[i, j]
  for (let i = 0; i < N; i += 1) {
    const [lo, values] = row(ab, N, P, i);
    values.forEach((v, t) => (band[i * W + P + lo + t - i] = v));
  }
  const X = Float64Array.from(B);
  for (let i = 0; i < N; i += 1) {
    const pivot = band[i * W + P];
    for (let r = i + 1; r <= Math.min(N - 1, i + P); r += 1) {
      const factor = band[r * W + P + i - r] / pivot;
      for (let j = i; j <= Math.min(N - 1, i + P); j += 1) band[r * W + P + j - r] -= factor * band[i * W + P + j - i];
      for (let k = 0; k < R; k += 1) X[r * R + k] -= factor * X[i * R + k];
    }
  }
  for (let i = N - 1; i >= 0; i -= 1) {
    for (let k = 0; k < R; k += 1) {
      let sum = X[i * R + k];
      for (let j = i + 1; j <= Math.min(N - 1, i + P); j += 1) sum -= band[i * W + P + j - i] * X[j * R + k];
      X[i * R + k] = sum / band[i * W + P];
    }
  }
  return X;
}

export default function oracle(point, args) {
  const {N, P, R} = point;
  const x = solve(args.ab, N, P, R, args.b);
  const r = residual(args.ab, N, P, R, x, args.b);
  const dx = solve(args.ab, N, P, R, r);
  for (let k = 0; k < x.length; k += 1) x[k] -= dx[k];
  return {x};
}
