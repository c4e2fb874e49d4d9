// Generator of zoo/polymul_negacyclic@1.0.0: negacyclic polynomial product mod q.
// q is derived from the point, not drawn: the largest prime q < 2^W with q = 1 (mod 2N).
// Draws the N coefficients of a, then the N coefficients of b, each as below(q).
// The third argument is the scalar q itself (it consumes nothing from the stream).
import {checkPoint, modulus} from './modular.mjs';

export default function generate(point, stream) {
  checkPoint(point);
  const {N, W} = point;
  const q = modulus(N, W);
  const a = new Uint32Array(N);
  for (let i = 0; i < N; i += 1) a[i] = Number(stream.below(q));
  const b = new Uint32Array(N);
  for (let i = 0; i < N; i += 1) b[i] = Number(stream.below(q));
  return {a, b, q: Uint32Array.of(q)};
}
