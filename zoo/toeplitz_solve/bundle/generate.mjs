// Generator of zoo/toeplitz_solve@1.0.0: a strictly diagonally dominant Toeplitz system T x = b.
// T[i][j] = c[i - j] for i >= j and r[j - i] for j >= i (c[0] = r[0] is the diagonal).
// Draws, in signature order: c[1..N-1], then r[1..N-1], then b[0..N-1], each value bits(11) - 1024,
// an integer in [-1024, 1023]. The diagonal is not drawn: c[0] = r[0] = 1 + sum_{k>=1} (|c[k]| + |r[k]|),
// so every row's off-diagonal sum is below the diagonal (strict dominance, T nonsingular, and every
// leading principal submatrix too). All values are integers, exact in f64.
export default function generate(point, stream) {
  const {N} = point;
  const draw = () => Number(stream.bits(11)) - 1024;
  const c = new Float64Array(N);
  const r = new Float64Array(N);
  const b = new Float64Array(N);
  for (let k = 1; k < N; k += 1) c[k] = draw();
  for (let k = 1; k < N; k += 1) r[k] = draw();
  for (let k = 0; k < N; k += 1) b[k] = draw();
  let diagonal = 1;
  for (let k = 1; k < N; k += 1) diagonal += Math.abs(c[k]) + Math.abs(r[k]);
  c[0] = diagonal;
  r[0] = diagonal;
  return {c, r, b};
}
