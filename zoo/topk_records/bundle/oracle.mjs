// Oracle of zoo/topk_records@1.0.0: the K best record indices under the composite order (key1
// descending, then key2 ascending, then id ascending). The ids are distinct, so the order is total
// and the answer unique.
//
// Only candidates are sorted: t, the K-th largest key1 (a numeric sort of key1 alone), bounds the
// answer, since at least K records have key1 >= t and each of them beats any record with key1 < t.
// The records with key1 >= t (K plus those tied at t) are sorted with the full comparator.
export default function oracle(point, args) {
  const {key1, key2, id} = args;
  const {N, K} = point;
  const t = kthLargest(key1, N, K);
  const candidates = [];
  for (let i = 0; i < N; i += 1) if (key1[i] >= t) candidates.push(i);
  candidates.sort((a, b) => key1[b] - key1[a] || key2[a] - key2[b] || id[a] - id[b]);
  return {top: Int32Array.from(candidates.slice(0, K))};
}

/**
 * The K-th largest of values (what a numeric sort puts at N - K): by counting where the values span
 * fewer than 2^16 integers (the generator draws key1 in [-512, 511]: 2 ms a 524,288-record case
 * instead of the sort's 25 ms), else by that sort.
 */
function kthLargest(values, N, K) {
  let low = values[0];
  let high = values[0];
  for (let i = 1; i < N; i += 1) {
    if (values[i] < low) low = values[i];
    else if (values[i] > high) high = values[i];
  }
  if (high - low >= 65536) return Int32Array.from(values).sort()[N - K];
  const counts = new Uint32Array(high - low + 1);
  for (let i = 0; i < N; i += 1) counts[values[i] - low] += 1;
  let atLeast = 0;
  for (let value = high; ; value -= 1) {
    atLeast += counts[value - low];
    if (atLeast >= K) return value;
  }
}
