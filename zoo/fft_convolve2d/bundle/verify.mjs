// Verifier of zoo/fft_convolve2d@1.0.0. Every element of the answer must be finite and within
// tol = accept.rtol * ||image||_2 * ||kernel||_2 of the exact convolution (the oracle's). That is the
// scale of a float64 FFT convolution's error (README.md); a float32 or wrong answer is far outside it.
// metrics: {"wrong": elements outside the bound, "of": elements, "worst": max |out - exact| over
// ||image||_2 * ||kernel||_2, or null when an element is not finite, "first": the first wrong element}.
import {norm2} from './conv.mjs';

export default function verify(point, args, expected, actual, accept) {
  const rtol = Number(accept?.rtol ?? 1e-12);
  const scale = norm2(args.image) * norm2(args.kernel);
  const tol = rtol * scale;
  const M = point.N + point.K - 1;
  const want = expected.out;
  const got = actual.out;
  let wrong = 0;
  let worst = 0;
  let finite = true;
  let first;
  for (let i = 0; i < want.length; i += 1) {
    const error = Math.abs(got[i] - want[i]);
    if (!Number.isFinite(got[i])) finite = false;
    else if (error > worst) worst = error;
    if (Number.isFinite(got[i]) && error <= tol) continue;
    if (wrong === 0) first = {result: 'out', index: [Math.floor(i / M), i % M], flat: i, expected: want[i], got: got[i]};
    wrong += 1;
  }
  const metrics = {wrong, of: want.length, worst: finite ? worst / (scale || 1) : null};
  if (first) metrics.first = first;
  return {passed: wrong === 0, metrics};
}
