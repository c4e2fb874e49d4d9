/**
 * The runner's view of a bundle's signature at one point: every argument and
 * result with its element type and concrete shape, as runner.py reads it.
 */
import {bindingShape, type Binding as BundleBinding, type Bundle, type Point} from '../bundle/index.js';

/** One tensor binding with its dimensions evaluated at a point. */
export interface Binding {
  name: string;
  type: string;
  shape: number[];
}

/** What runner.py reads from its --signature file. */
export interface PointSignature {
  args: Binding[];
  results: Binding[];
  /** The plan's `interface = "solve"`: the runner calls `solve(problem)` on the decoded argument (lib/eval/objects.py). */
  interface?: 'solve';
}

/** Evaluate every binding of the loaded bundle's signature at `point`. */
export function pointSignature(bundle: Bundle, point: Point, solveInterface = false): PointSignature {
  const evaluate = (binding: BundleBinding): Binding => ({
    name: binding.name,
    type: binding.type,
    shape: bindingShape(binding, point).map(Number),
  });
  const signature: PointSignature = {args: bundle.args.map(evaluate), results: bundle.results.map(evaluate)};
  if (solveInterface) signature.interface = 'solve';
  return signature;
}

/** The byte size of one binding's tensor file (element size x element count). */
export function byteSize(binding: Binding): number {
  return (Number(binding.type.slice(1)) / 8) * binding.shape.reduce((count, dim) => count * dim, 1);
}
