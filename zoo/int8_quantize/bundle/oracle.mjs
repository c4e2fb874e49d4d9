// Oracle of zoo/int8_quantize@1.0.0. The score does not depend on it: the verifier measures the
// answer against W X itself. expected/ holds a reference answer for people reading a case (and for
// arbor's probes): per-row absmax quantization, scale[r] = fround(max_k |W[r, k]| / 127) and
// q[r, k] = round-half-even(W[r, k] / scale[r]) clamped to [-127, 127] (the baseline's answer).
function roundHalfEven(v) {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

export default function oracle(point, args) {
  const {R, K} = point;
  const W = args.W;
  const q = new Int8Array(R * K);
  const scale = new Float32Array(R);
  for (let r = 0; r < R; r += 1) {
    let max = 0;
    for (let k = 0; k < K; k += 1) max = Math.max(max, Math.abs(W[r * K + k]));
    const s = Math.fround(max / 127);
    scale[r] = s;
    if (s === 0) continue;
    for (let k = 0; k < K; k += 1) q[r * K + k] = Math.max(-127, Math.min(127, roundHalfEven(Math.fround(W[r * K + k] / s))));
  }
  return {q, scale};
}
