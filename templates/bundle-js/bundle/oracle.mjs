// Oracle of {{name}}: the correct results of one case. y = x sorted ascending.
export default function oracle(point, args) {
  return {y: Float64Array.from(args.x).sort()};
}
