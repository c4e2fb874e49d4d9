// Generator of zoo/banded_solve@1.0.0: a strictly diagonally dominant banded system A X = B.
// Draws, in this order: every off-diagonal entry of the band inside the matrix, walking ab in
// row-major order (band row d = 0..2P, then column j; A[i, j] with i = j + d - P, skipping d = P and
// entries with i outside 0..N-1), then B (N x R, row-major); each value bits(11) - 1024, an integer
// in [-1024, 1023]. Not drawn: ab's corners outside the matrix are 0, and the diagonal is
// A[i, i] = 1 + sum_{j != i} |A[i, j]|, so every row's margin |A[i, i]| - sum_{j != i} |A[i, j]| is 1.
import {row} from './band.mjs';

export default function generate(point, stream) {
  const {N, P, R} = point;
  const draw = () => Number(stream.bits(11)) - 1024;
  const ab = new Float64Array((2 * P + 1) * N);
  for (let d = 0; d <= 2 * P; d += 1) {
    if (d === P) continue;
    for (let j = 0; j < N; j += 1) {
      const i = j + d - P;
      if (i >= 0 && i < N) ab[d * N + j] = draw();
    }
  }
  const b = new Float64Array(N * R);
  for (let k = 0; k < N * R; k += 1) b[k] = draw();
  for (let i = 0; i < N; i += 1) {
    let off = 0;
    for (const v of row(ab, N, P, i)[1]) off += Math.abs(v);
    ab[P * N + i] = 1 + off; // the diagonal was 0 in the sum
  }
  return {ab, b};
}
