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

/**
 * The ids: rank of (r_i, i), with r_i the low 29 bits of each 4-byte little-endian word. A stable
 * least-significant-digit radix sort of the record indices by r_i (three passes of 10, 10 and 9
 * bits) leaves equal r_i in index order, so it orders (r_i, i); it is linear in N, where a
 * comparison sort of the packed pairs took 84 ms of a 524,288-record case here.
 */
function randomIds(bytes, N) {
  let keys = new Uint32Array(N);
  let order = new Uint32Array(N);
  for (let i = 0; i < N; i += 1) {
    keys[i] = (bytes[4 * i] | (bytes[4 * i + 1] << 8) | (bytes[4 * i + 2] << 16) | (bytes[4 * i + 3] << 24)) & 0x1fffffff;
    order[i] = i;
  }
  let nextKeys = new Uint32Array(N);
  let nextOrder = new Uint32Array(N);
  const counts = new Uint32Array(1024);
  for (const shift of [0, 10, 20]) {
    counts.fill(0);
    for (let j = 0; j < N; j += 1) counts[(keys[j] >>> shift) & 1023] += 1;
    let position = 0;
    for (let digit = 0; digit < 1024; digit += 1) {
      const count = counts[digit];
      counts[digit] = position;
      position += count;
    }
    for (let j = 0; j < N; j += 1) {
      const to = counts[(keys[j] >>> shift) & 1023]++;
      nextKeys[to] = keys[j];
      nextOrder[to] = order[j];
    }
    [keys, nextKeys] = [nextKeys, keys];
    [order, nextOrder] = [nextOrder, order];
  }
  const id = new Int32Array(N);
  for (let rank = 0; rank < N; rank += 1) id[order[rank]] = rank;
  return id;
}
