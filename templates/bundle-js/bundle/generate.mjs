// Generator of {{name}}: draws the arguments of one case from the stream, in signature order.
// x: N doubles in [0, 1), each bits(53) / 2^53 (stream.float64s; see arbor's lib/bundle/README.md).
export default function generate(point, stream) {
  return {x: stream.float64s(point.N)};
}
