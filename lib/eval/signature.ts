/**
 * The runner's view of a bundle's signature at one point: every argument and
 * result with its element type and concrete shape, as runner.py reads it.
 */
import {bindingShape, type Binding as BundleBinding, type Bundle, type Point} from '../bundle/index.js';
import type {RunnerBinding, RunnerSignature} from '../sandbox/index.js';

/** One tensor binding with its dimensions evaluated at a point; what runner.py reads (the sandbox's type, served in `hello`). */
export type Binding = RunnerBinding;
export type PointSignature = RunnerSignature;

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
