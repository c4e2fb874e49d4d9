/** The worker of stream-parallel.ts: claims chunks of a segment and hashes them into the shared scratch buffer. */
import {parentPort, workerData} from 'node:worker_threads';
import {PrefixHasher} from './sha256.js';

const NEXT = 0;
const DONE = 1;
const STATE = 4;

const control = new Int32Array(workerData.control as SharedArrayBuffer);
const scratch = new Uint8Array(workerData.scratch as SharedArrayBuffer);
let hasher: PrefixHasher | undefined;
let key = '';

interface Segment {
  gen: number;
  spec: string;
  seed: number | bigint;
  first: number;
  blocks: number;
  chunks: number;
  chunkBlocks: number;
}

parentPort!.on('message', (s: Segment) => {
  const prefix = `${s.spec}|${s.seed}|`;
  if (prefix !== key || !hasher) {
    hasher = new PrefixHasher(new TextEncoder().encode(prefix));
    key = prefix;
  }
  for (;;) {
    const v = Atomics.load(control, NEXT);
    if (v >>> 16 !== s.gen) return; // a later segment (or none): this message is stale
    const c = v & 0xffff;
    if (c >= s.chunks) return;
    if (Atomics.compareExchange(control, NEXT, v, v + 1) !== v) continue;
    Atomics.store(control, STATE + c, 1);
    const b = c * s.chunkBlocks;
    hasher.fill(s.first + b, Math.min(s.chunkBlocks, s.blocks - b), scratch, 32 * b);
    Atomics.store(control, STATE + c, 2);
    Atomics.add(control, DONE, 1);
    Atomics.notify(control, DONE);
  }
});
