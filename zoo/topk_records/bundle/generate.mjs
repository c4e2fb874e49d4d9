// Generator of zoo/topk_records@1.0.0. Draws, in signature order:
//   key1: N values, each bits(10) - 512, an integer in [-512, 511] (about N / 1024 records share each);
//   key2: N values, each (bits(8) - 128) / 16, in [-8, 7.9375] in steps of 1/16 (exact in f32; zero is +0);
//   id:   N values r_i = bits(29), one per record; the records ranked by (r_i, i) ascending get the ids
//         0 .. N-1 in that order: a random permutation, so the ids are distinct and no two records tie.
// Each batch is drawn as one bytes() call (2 N, N and 4 N bytes), which takes exactly the bytes N calls
// of bits(10), bits(8) or bits(29) take, in the same order, without a call per value.
export default function generate(point, stream) {
  const {N, K} = point;
  if (K > N) throw new RangeError(`K = ${K} is more than the N = ${N} records; choose a point with K <= N`);
  const low = stream.bytes(2 * N);
  const key1 = new Int32Array(N);
  for (let i = 0; i < N; i += 1) key1[i] = ((low[2 * i] | (low[2 * i + 1] << 8)) & 1023) - 512;
  const byte = stream.bytes(N);
  const key2 = new Float32Array(N);
  for (let i = 0; i < N; i += 1) key2[i] = (byte[i] - 128) / 16;
  return {key1, key2, id: randomIds(stream.bytes(4 * N), N)};
}

/** The ids: rank of (r_i, i), with r_i the low 29 bits of each 4-byte little-endian word. */
function randomIds(bytes, N) {
  // r_i * 2^24 + i < 2^53 (N <= 2^24) is exact in a double, and one native sort orders (r_i, i).
  const packed = new Float64Array(N);
  for (let i = 0; i < N; i += 1) {
    const r = (bytes[4 * i] | (bytes[4 * i + 1] << 8) | (bytes[4 * i + 2] << 16) | (bytes[4 * i + 3] << 24)) & 0x1fffffff;
    packed[i] = r * 16777216 + i;
  }
  packed.sort();
  const id = new Int32Array(N);
  for (let rank = 0; rank < N; rank += 1) id[packed[rank] % 16777216] = rank;
  return id;
}
