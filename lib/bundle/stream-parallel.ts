/** Large stream draws split across a worker thread (placeholder: single-threaded until the pool lands). */
import {PrefixHasher} from './sha256.js';

/** Draws of at least this many bytes may use a second thread. */
export const PARALLEL_THRESHOLD = Number.POSITIVE_INFINITY;

/** Fill out[offset..) with `count` blocks starting at block `first` of the (spec, seed) stream. */
export function fillParallel(spec: string, seed: number, first: number, count: number, out: Uint8Array, offset: number): void {
  new PrefixHasher(new TextEncoder().encode(`${spec}|${seed}|`)).fill(first, count, out, offset);
}
