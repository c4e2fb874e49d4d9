// Exact modular arithmetic shared by the generator and the oracle of zoo/polymul_negacyclic@1.0.0.
// Every value is an integer below q < 2^31, held in a Number; products are split so that no
// intermediate exceeds 2^53.

/** The point's checks: N a power of two, 2 <= W <= 31. */
export function checkPoint({N, W}) {
  if (!Number.isInteger(N) || N < 2 || (N & (N - 1)) !== 0) throw new RangeError(`point: N (${N}) must be a power of two >= 2`);
  if (!Number.isInteger(W) || W < 2 || W > 31) throw new RangeError(`point: W (${W}) must be an integer in [2, 31]`);
}

function isPrime(n) {
  if (n < 2) return false;
  if (n % 2 === 0) return n === 2;
  for (let d = 3; d * d <= n; d += 2) if (n % d === 0) return false;
  return true;
}

/** The modulus: the largest prime q < 2^W with q = 1 (mod 2N). Throws when there is none. */
export function modulus(N, W) {
  const step = 2 * N;
  for (let k = Math.floor((2 ** W - 2) / step); k >= 1; k -= 1) {
    const q = k * step + 1;
    if (isPrime(q)) return q;
  }
  throw new RangeError(`point: no prime q < 2^${W} with q = 1 (mod ${step}); raise W or lower N`);
}

/** a * b mod q for 0 <= a, b < q < 2^31, exactly. */
export function mulmod(a, b, q) {
  const hi = Math.floor(b / 65536);
  const lo = b - hi * 65536;
  return (((a * hi) % q) * 65536 + a * lo) % q;
}

export function powmod(base, exp, q) {
  let result = 1;
  let b = base % q;
  let e = exp;
  while (e > 0) {
    if (e % 2 === 1) result = mulmod(result, b, q);
    b = mulmod(b, b, q);
    e = Math.floor(e / 2);
  }
  return result;
}

/** A primitive 2N-th root of unity mod q: psi^N = -1. */
export function rootOfUnity(N, q) {
  for (let g = 2; g < q; g += 1) {
    const psi = powmod(g, (q - 1) / (2 * N), q);
    if (powmod(psi, N, q) === q - 1) return psi;
  }
  throw new RangeError(`no primitive ${2 * N}-th root of unity mod ${q}`);
}

/** In-place cyclic NTT of length n (power of two) with the primitive n-th root omega. */
function ntt(values, omega, q) {
  const n = values.length;
  for (let i = 1, j = 0; i < n; i += 1) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) [values[i], values[j]] = [values[j], values[i]];
  }
  for (let len = 2; len <= n; len *= 2) {
    const w = powmod(omega, n / len, q);
    const half = len / 2;
    const twiddles = new Float64Array(half);
    twiddles[0] = 1;
    for (let k = 1; k < half; k += 1) twiddles[k] = mulmod(twiddles[k - 1], w, q);
    for (let start = 0; start < n; start += len) {
      for (let k = 0; k < half; k += 1) {
        const u = values[start + k];
        const v = mulmod(values[start + k + half], twiddles[k], q);
        values[start + k] = u + v >= q ? u + v - q : u + v;
        values[start + k + half] = u - v < 0 ? u - v + q : u - v;
      }
    }
  }
}

/** c = a * b mod (x^N + 1, q) by the negacyclic NTT. a, b: integer arrays with entries in [0, q). */
export function negacyclicProduct(a, b, q) {
  const N = a.length;
  const psi = rootOfUnity(N, q);
  const omega = mulmod(psi, psi, q);
  const fa = new Float64Array(N);
  const fb = new Float64Array(N);
  let power = 1;
  for (let i = 0; i < N; i += 1) {
    fa[i] = mulmod(Number(a[i]), power, q);
    fb[i] = mulmod(Number(b[i]), power, q);
    power = mulmod(power, psi, q);
  }
  ntt(fa, omega, q);
  ntt(fb, omega, q);
  for (let i = 0; i < N; i += 1) fa[i] = mulmod(fa[i], fb[i], q);
  ntt(fa, powmod(omega, q - 2, q), q);
  const psiInverse = powmod(psi, q - 2, q);
  let scale = powmod(N, q - 2, q);
  const c = new Uint32Array(N);
  for (let i = 0; i < N; i += 1) {
    c[i] = mulmod(fa[i], scale, q);
    scale = mulmod(scale, psiInverse, q);
  }
  return c;
}
