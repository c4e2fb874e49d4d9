/**
 * Which seeds a split runs: the published ones, or (test split with
 * ARBOR_TEST_SALT set) seeds derived from a secret salt, plus the warm-up seed.
 */
import {createHash} from 'node:crypto';
import type {Plan, Split} from '../benchmark/plan.js';
import {saltVariable} from '../secrets.js';

/** Environment variable holding the test salt (lib/secrets.ts, with the other secrets). */
export {saltVariable};

/**
 * Derive `count` test seeds from a salt: candidate k is the first 6 bytes
 * (big-endian, 48 bits) of SHA-256 of the UTF-8 text `<salt>|<name>|<k>`, for
 * k = 0, 1, 2, ...; a candidate equal to a dev seed or to an earlier one is
 * skipped, so the result is `count` distinct seeds disjoint from `exclude`.
 */
export function deriveSeeds(salt: string, name: string, count: number, exclude: Iterable<number> = []): number[] {
  const taken = new Set(exclude);
  const seeds: number[] = [];
  for (let k = 0; seeds.length < count; k++) {
    const digest = createHash('sha256').update(`${salt}|${name}|${k}`, 'utf8').digest();
    const seed = digest.readUIntBE(0, 6);
    if (taken.has(seed)) continue;
    taken.add(seed);
    seeds.push(seed);
  }
  return seeds;
}

/** The seeds of a split, and whether they were derived from the salt. */
export function splitSeeds(plan: Plan, split: Split, env: NodeJS.ProcessEnv = process.env, name = plan.name): {seeds: number[]; derived: boolean} {
  const salt = env[saltVariable];
  if (split === 'test' && salt !== undefined && salt !== '') {
    return {seeds: deriveSeeds(salt, name, plan.test.seeds.length, plan.dev.seeds), derived: true};
  }
  return {seeds: plan[split].seeds, derived: false};
}

/**
 * The warm-up seed: one more than the largest seed of dev, published test and
 * the seeds in use, so the warm-up case is never one of the timed cases.
 */
export function warmupSeed(plan: Plan, seeds: number[]): number {
  let max = 0;
  for (const seed of [...plan.dev.seeds, ...plan.test.seeds, ...seeds]) if (seed > max) max = seed;
  return max + 1;
}

/**
 * Whether a split draws fresh cases every repetition: speedup plans over
 * seeds. A solution that remembered a case's answer (in the page cache, say)
 * then has nothing to replay: every repetition, and every eval, times cases
 * it has never seen. Accuracy plans keep their fixed seeds (their scores must
 * be deterministic), and a path split's cases are its files.
 */
export function drawsFreshCases(plan: Pick<Plan, 'metric' | 'splitKind'>): boolean {
  return plan.metric === 'speedup' && plan.splitKind !== 'path';
}

/** The seeds a fresh draw never takes: the plan's published dev and test seeds (a published case's answer is public). */
export function publishedSeeds(plan: Pick<Plan, 'dev' | 'test'>): number[] {
  return [...plan.dev.seeds, ...plan.test.seeds];
}

/**
 * `count` fresh seeds of one repetition of one point: candidate k is the
 * first 6 bytes (big-endian) of SHA-256 of `<nonce hex>|<point>|<draw>|<k>`,
 * skipping `exclude` and repeats. `draw` is the repetition's number, or
 * `warmup` for the point's untimed warm-up case. The nonce is drawn by the
 * eval (crypto-random, never given to a run), so no run can know a seed
 * before its case arrives, and no two evals share cases.
 */
export function freshSeeds(nonce: Buffer, point: number, draw: number | 'warmup', count: number, exclude: Iterable<number> = []): number[] {
  const taken = new Set(exclude);
  const seeds: number[] = [];
  const key = nonce.toString('hex');
  for (let k = 0; seeds.length < count; k++) {
    const seed = createHash('sha256').update(`${key}|${point}|${draw}|${k}`, 'utf8').digest().readUIntBE(0, 6);
    if (taken.has(seed)) continue;
    taken.add(seed);
    seeds.push(seed);
  }
  return seeds;
}
