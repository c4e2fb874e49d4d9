// Verifier of {{name}}: how right one answer is. correct = the positions where y equals x sorted
// ascending (bit for bit, so a NaN is never right), of = N; the score is the mean of correct / of.
export default function verify(point, args, expected, actual, accept) {
  const want = expected.y;
  const got = actual.y;
  let correct = 0;
  for (let i = 0; i < want.length; i += 1) if (Object.is(got[i], want[i])) correct += 1;
  return {passed: correct === want.length, metrics: {correct, of: want.length}};
}
