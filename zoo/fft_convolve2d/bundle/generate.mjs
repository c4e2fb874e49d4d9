// Generator of zoo/fft_convolve2d@1.0.0. Draws, in signature order: the N x N image, row-major, then
// the K x K kernel, row-major; each value is bits(20) - 2^19 over 2^20, a double in [-0.5, 0.5)
// (see conv.mjs: drawn as bytes(3 n), which takes exactly the bytes n calls of bits(20) take).
import {drawValues} from './conv.mjs';

export default function generate(point, stream) {
  const {N, K} = point;
  const image = drawValues(stream, N * N);
  const kernel = drawValues(stream, K * K);
  return {image, kernel};
}
