// Shared by the generator and the verifier of zoo/fft_convolve2d@1.0.0.

/** 2^20: every drawn value is an integer in [-2^19, 2^19) divided by this. */
export const SCALE = 1 << 20;

/**
 * n values, each bits(20) of the stream (3 bytes, little-endian, low 20 bits) minus 2^19, over 2^20:
 * a double in [-0.5, 0.5) with at most 20 significant bits. One bytes(3n) call draws exactly what n
 * calls of bits(20) would, in the same order, without a call per value.
 */
export function drawValues(stream, n) {
  const bytes = stream.bytes(3 * n);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    const raw = bytes[3 * i] | (bytes[3 * i + 1] << 8) | (bytes[3 * i + 2] << 16);
    values[i] = ((raw & 0xfffff) - 0x80000) / SCALE;
  }
  return values;
}

/** The Euclidean norm of a vector (a plain sum of squares: a bound, not a result, needs no care). */
export function norm2(values) {
  let sum = 0;
  for (const v of values) sum += v * v;
  return Math.sqrt(sum);
}
