// Generator of zoo/relu_poly@1.0.0: the M evaluation points, uniform on [-1, 1).
// Each point is drawn as x = bits(53) / 2^52 - 1: exact IEEE arithmetic (a division by a power of
// two and a subtraction that are both exact), so every implementation draws the same doubles.
export default function generate(point, stream) {
  const {D, M} = point;
  if (!Number.isInteger(D) || D < 0) throw new RangeError(`point: D (${D}) must be an integer >= 0`);
  const x = new Float64Array(M);
  for (let i = 0; i < M; i += 1) x[i] = Number(stream.bits(53)) / 4503599627370496 - 1;
  return {x};
}
