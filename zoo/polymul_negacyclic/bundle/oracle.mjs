// Oracle of zoo/polymul_negacyclic@1.0.0: c = a * b mod (x^N + 1, q), coefficients in [0, q),
// computed by the negacyclic number-theoretic transform with exact integer arithmetic.
// No verifier: the answer is compared byte for byte.
import {checkPoint, modulus, negacyclicProduct} from './modular.mjs';

export default function oracle(point, args) {
  checkPoint(point);
  const q = modulus(point.N, point.W);
  if (args.q[0] !== q) throw new RangeError(`case: q (${args.q[0]}) is not the modulus of the point (${q})`);
  return {c: negacyclicProduct(args.a, args.b, q)};
}
