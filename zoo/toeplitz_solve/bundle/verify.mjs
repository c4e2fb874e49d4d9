// Verifier of zoo/toeplitz_solve@1.0.0. Every element of the answer must be finite, and the
// relative residual in the infinity norm, max_i |(T x - b)_i| / max_i |b_i| (T x summed left to
// right in f64), must be at most accept.tolerance.
// metrics: {"worst": that relative residual, or null when some element is not finite}.
import {relativeResidual} from './toeplitz.mjs';

export default function verify(point, args, expected, actual, accept) {
  const tolerance = Number(accept?.tolerance ?? 1e-9);
  const residual = relativeResidual(args.c, args.r, actual.x, args.b);
  if (Number.isNaN(residual)) return {passed: false, metrics: {worst: null}};
  return {passed: residual <= tolerance, metrics: {worst: residual}};
}
