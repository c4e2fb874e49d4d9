/**
 * Large stream draws on two threads. The stream is seekable (block i depends on i
 * only), so a draw of many blocks splits into chunks that the calling thread and
 * one worker claim from a shared counter. `bytes()` stays synchronous: the caller
 * hashes chunks itself and waits (Atomics.wait) only for the worker's last one.
 * A worker that has not started yet, or has died, simply claims nothing.
 */
import os from 'node:os';
import {Worker} from 'node:worker_threads';
import {PrefixHasher} from './sha256.js';

/** Draws of at least this many bytes are split across threads. */
export const PARALLEL_THRESHOLD = 8 << 20;
/** Blocks per segment: the shared scratch buffer (32 MiB) the worker writes into. */
const SEGMENT_BLOCKS = 1 << 20;
/** Blocks per claimed chunk (256 KiB). */
const CHUNK_BLOCKS = 1 << 13;
/** Control words. */
const NEXT = 0; // (generation << 16) | next chunk to claim
const DONE = 1; // chunks finished in this segment
const STATE = 4; // STATE + c: 0 unclaimed, 1 claimed by the worker, 2 done by the worker, 3 done here

let threads = Math.min(2, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
if (process.env.ARBOR_STREAM_THREADS) threads = Math.max(1, Number(process.env.ARBOR_STREAM_THREADS) | 0);

/** Set how many threads large draws use (1 = no worker); returns the previous setting. */
export function setParallelism(n: number | undefined): number {
  const previous = threads;
  if (n !== undefined) threads = Math.max(1, n | 0);
  return previous;
}

interface Pool {
  worker: Worker;
  control: Int32Array;
  scratch: Uint8Array;
  generation: number;
  alive: boolean;
}

let pool: Pool | undefined;

function getPool(): Pool | undefined {
  if (threads < 2) return undefined;
  if (pool?.alive) return pool;
  try {
    const controlBuffer = new SharedArrayBuffer(4 * (STATE + SEGMENT_BLOCKS / CHUNK_BLOCKS));
    const scratchBuffer = new SharedArrayBuffer(SEGMENT_BLOCKS * 32);
    const worker = new Worker(new URL('./stream-worker.js', import.meta.url), {
      workerData: {control: controlBuffer, scratch: scratchBuffer},
    });
    worker.unref();
    const created: Pool = {worker, control: new Int32Array(controlBuffer), scratch: new Uint8Array(scratchBuffer), generation: 0, alive: true};
    worker.on('error', () => (created.alive = false));
    worker.on('exit', () => (created.alive = false));
    pool = created;
    return created;
  } catch {
    threads = 1;
    return undefined;
  }
}

/** Fill out[offset..) with `count` blocks starting at block `first` of the (spec, seed) stream. */
export function fillParallel(spec: string, seed: number | bigint, first: number, count: number, out: Uint8Array, offset: number): void {
  const hasher = new PrefixHasher(new TextEncoder().encode(`${spec}|${seed}|`));
  const workers = getPool();
  if (!workers) {
    hasher.fill(first, count, out, offset);
    return;
  }
  for (let start = 0; start < count; start += SEGMENT_BLOCKS) {
    segment(workers, hasher, spec, seed, first + start, Math.min(SEGMENT_BLOCKS, count - start), out, offset + 32 * start);
  }
}

function segment(p: Pool, hasher: PrefixHasher, spec: string, seed: number | bigint, first: number, blocks: number, out: Uint8Array, offset: number): void {
  const {control, scratch} = p;
  const chunks = Math.ceil(blocks / CHUNK_BLOCKS);
  p.generation = (p.generation + 1) & 0x7fff;
  const gen = p.generation;
  control.fill(0, STATE, STATE + chunks);
  Atomics.store(control, DONE, 0);
  Atomics.store(control, NEXT, gen << 16);
  p.worker.postMessage({gen, spec, seed, first, blocks, chunks, chunkBlocks: CHUNK_BLOCKS});
  for (;;) {
    const v = Atomics.load(control, NEXT);
    const c = v & 0xffff;
    if (c >= chunks) break;
    if (Atomics.compareExchange(control, NEXT, v, v + 1) !== v) continue;
    const b = c * CHUNK_BLOCKS;
    hasher.fill(first + b, Math.min(CHUNK_BLOCKS, blocks - b), out, offset + 32 * b);
    Atomics.store(control, STATE + c, 3);
    Atomics.add(control, DONE, 1);
  }
  // Wait for the worker's chunks; if it makes no progress for a long time (it died), do them here.
  let done = Atomics.load(control, DONE);
  while (done < chunks) {
    const result = Atomics.wait(control, DONE, done, 10_000);
    const now = Atomics.load(control, DONE);
    if (result === 'timed-out' && now === done) {
      p.alive = false;
      for (let c = 0; c < chunks; c++) {
        if (Atomics.load(control, STATE + c) === 1) {
          const b = c * CHUNK_BLOCKS;
          hasher.fill(first + b, Math.min(CHUNK_BLOCKS, blocks - b), scratch, 32 * b);
          Atomics.store(control, STATE + c, 2);
        }
      }
      break;
    }
    done = now;
  }
  for (let c = 0; c < chunks; c++) {
    if (Atomics.load(control, STATE + c) !== 2) continue;
    const b = c * CHUNK_BLOCKS;
    const n = 32 * Math.min(CHUNK_BLOCKS, blocks - b);
    out.set(scratch.subarray(32 * b, 32 * b + n), offset + 32 * b);
  }
}
